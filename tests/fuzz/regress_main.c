/*
 * regress_main.c - the main of a harness built without libFuzzer (any compiler): feeds
 * every file of the folders (or the files) named on the command line to the harness's
 * LLVMFuzzerTestOneInput, once each, in name order. `make test` runs each harness so
 * over tests/fuzz/regress/<harness>/ (inputs that once found a defect) and the seed
 * corpus gen_corpus.py wrote into the build tree; a defect shows as the harness's abort
 * or a sanitizer report, i.e. a failing test. README files are skipped.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;

	if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
		fprintf(stderr, "regress: cannot read %s\n", path);
		if (f)
			fclose(f);
		return -1;
	}
	/* One byte more than the file, never 0: malloc(0) may return NULL. */
	buf = malloc((size_t)n + 1);
	if (buf == NULL || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		fprintf(stderr, "regress: cannot read %s\n", path);
		free(buf);
		fclose(f);
		return -1;
	}
	fclose(f);
	fprintf(stderr, "regress: %s (%ld bytes)\n", path, n);
	LLVMFuzzerTestOneInput(buf, (size_t)n);
	free(buf);
	return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

int main(int argc, char **argv)
{
	int runs = 0;

	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++) {
		struct stat st;
		struct dirent **names;
		int n;

		if (stat(argv[i], &st) != 0) {
			fprintf(stderr, "regress: %s does not exist\n", argv[i]);
			return 1;
		}
		if (!S_ISDIR(st.st_mode)) {
			if (run_file(argv[i]) != 0)
				return 1;
			runs++;
			continue;
		}
		n = scandir(argv[i], &names, NULL, by_name);
		if (n < 0) {
			fprintf(stderr, "regress: cannot list %s\n", argv[i]);
			return 1;
		}
		for (int k = 0; k < n; k++) {
			char path[4096];
			struct stat fst;

			snprintf(path, sizeof(path), "%s/%s", argv[i], names[k]->d_name);
			if (names[k]->d_name[0] != '.' && strncmp(names[k]->d_name, "README", 6) != 0 &&
			    stat(path, &fst) == 0 && S_ISREG(fst.st_mode)) {
				if (run_file(path) != 0)
					return 1;
				runs++;
			}
			free(names[k]);
		}
		free(names);
	}
	fprintf(stderr, "regress: %d inputs ran without a defect\n", runs);
	/* No input at all means a wrong folder: that must not pass as green. */
	return runs > 0 ? 0 : 1;
}
