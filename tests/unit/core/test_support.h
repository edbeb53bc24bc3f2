/* Helpers shared by core's unit tests: clean flowdpa environment, stderr capture. */
#ifndef FLOWDPA_TEST_SUPPORT_H_
#define FLOWDPA_TEST_SUPPORT_H_

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

/* Unset every FLOWDPA_* setting (test harness variables excepted). */
static inline void test_clear_flowdpa_env(void)
{
	char name[128];
	int again = 1;

	while (again) {
		again = 0;
		for (char **e = environ; e && *e; e++) {
			const char *eq = strchr(*e, '=');

			if (strncmp(*e, "FLOWDPA_", 8) != 0 || strncmp(*e, "FLOWDPA_TEST_", 13) == 0 || !eq ||
			    (size_t)(eq - *e) >= sizeof(name))
				continue;
			memcpy(name, *e, (size_t)(eq - *e));
			name[eq - *e] = '\0';
			unsetenv(name);
			again = 1;
			break;
		}
	}
}

/* Runs fn(arg) with stderr sent to a file; returns what it wrote (static buffer). */
static inline const char *test_capture_stderr(void (*fn)(void *), void *arg)
{
	static char out[16384];
	char path[] = "/tmp/flowdpa-stderr-XXXXXX";
	int tmp = mkstemp(path);
	int saved = dup(2);
	ssize_t n;

	fflush(stderr);
	dup2(tmp, 2);
	fn(arg);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	lseek(tmp, 0, SEEK_SET);
	n = read(tmp, out, sizeof(out) - 1);
	out[n > 0 ? n : 0] = '\0';
	close(tmp);
	unlink(path);
	return out;
}

/* Writes text to a fresh temp file and returns its path (static buffer). */
static inline const char *test_write_temp(const char *text)
{
	static char path[64];
	int fd;

	snprintf(path, sizeof(path), "/tmp/flowdpa-cfg-XXXXXX");
	fd = mkstemp(path);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		abort();
	close(fd);
	return path;
}

#endif
