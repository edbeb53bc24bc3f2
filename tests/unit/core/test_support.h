/* Helpers shared by core's unit tests: clean flowdpa environment, stderr capture. */
#ifndef FLOWDPA_TEST_SUPPORT_H_
#define FLOWDPA_TEST_SUPPORT_H_

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/core.h"

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

/* Runs fn(arg) with fd 1 or 2 sent to a file; returns what it wrote (static buffer,
 * one per fd so that a capture of stdout may run inside a capture of stderr). */
static inline const char *test_capture_fd(int fd, void (*fn)(void *), void *arg)
{
	static char outs[3][16384];
	char *out = outs[fd];
	char path[] = "/tmp/flowdpa-capture-XXXXXX";
	int tmp = mkstemp(path);
	int saved = dup(fd);
	FILE *stream = fd == 1 ? stdout : stderr;
	ssize_t n;

	if (tmp < 0 || saved < 0)
		abort();
	fflush(stream);
	dup2(tmp, fd);
	fn(arg);
	fflush(stream);
	dup2(saved, fd);
	close(saved);
	lseek(tmp, 0, SEEK_SET);
	n = read(tmp, out, sizeof(outs[0]) - 1);
	out[n > 0 ? n : 0] = '\0';
	close(tmp);
	unlink(path);
	return out;
}

static inline const char *test_capture_stderr(void (*fn)(void *), void *arg)
{
	return test_capture_fd(2, fn, arg);
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

/* cmocka setup/teardown: no FLOWDPA_* setting, configuration reloaded. */
static inline int test_clean_env(void **state)
{
	(void)state;
	test_clear_flowdpa_env();
	assert_int_equal(core_config_reload(), DOCA_SUCCESS);
	return 0;
}

#endif
