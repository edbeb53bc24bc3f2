/*
 * report.c - FLOWDPA_REPORT: a JSON summary written at exit (or on demand).
 *
 * Layers register named sections backed by a callback. A section whose object is
 * destroyed before exit is captured at unregister time, so the report still shows
 * what a destroyed export or queue did. Off (the default), registration returns NULL
 * and nothing is collected. Only the process that configured the report writes it: a
 * forked child that exits leaves the parent's file alone (as trace.c does).
 */
#include "core.h"
#include "core_internal.h"

#include <doca_version.h>

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct core_report_section {
	struct core_report_section *next;
	char name[64];
	core_report_fn fn;
	void *arg;
	char *snapshot; /* the section's JSON object once unregistered */
};

static pthread_mutex_t report_lock = PTHREAD_MUTEX_INITIALIZER;
static struct core_report_section *report_sections;
static char report_path[CORE_PATH_MAX];
static bool report_on;
static pid_t report_owner; /* the process that configured the report */

bool core_report_enabled(void)
{
	return report_on;
}

static char *section_render(const struct core_report_section *s)
{
	struct core_json *j = core_json_new();
	char *text = NULL;

	if (j == NULL)
		return NULL;
	core_json_object_begin(j);
	s->fn(j, s->arg);
	core_json_object_end(j);
	if (core_json_text(j) != NULL)
		text = core_strdup(core_json_text(j));
	core_json_free(j);
	return text;
}

struct core_report_section *core_report_register(const char *name, core_report_fn fn, void *arg)
{
	struct core_report_section *s;

	if (!report_on || name == NULL || fn == NULL)
		return NULL;
	s = core_calloc(1, sizeof(*s));
	if (s == NULL)
		return NULL;
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->fn = fn;
	s->arg = arg;
	pthread_mutex_lock(&report_lock);
	/* Append, so the report lists sections in the order objects were created. */
	struct core_report_section **tail = &report_sections;

	while (*tail != NULL)
		tail = &(*tail)->next;
	*tail = s;
	pthread_mutex_unlock(&report_lock);
	return s;
}

void core_report_unregister(struct core_report_section *section)
{
	struct core_report_section live;
	char *snap;

	if (section == NULL)
		return;
	pthread_mutex_lock(&report_lock);
	live = *section;
	pthread_mutex_unlock(&report_lock);
	/* Already unregistered: its final state was captured then. */
	if (live.fn == NULL)
		return;
	/* Rendered outside the lock: the callback may take its own object's locks. */
	snap = section_render(&live);
	pthread_mutex_lock(&report_lock);
	if (section->fn == NULL) {
		/* A concurrent unregister of the same section got there first. */
		pthread_mutex_unlock(&report_lock);
		free(snap);
		return;
	}
	section->snapshot = snap ? snap : core_strdup("{\"error\":\"out of memory\"}");
	section->fn = NULL;
	pthread_mutex_unlock(&report_lock);
}

static char *report_render(void)
{
	struct core_json *j = core_json_new();
	char *text = NULL;

	if (j == NULL)
		return NULL;
	core_json_object_begin(j);
	core_json_key(j, "flowdpa_version");
	core_json_str(j, DOCA_VERSION_STRING);
	core_json_key(j, "sections");
	core_json_array_begin(j);
	for (struct core_report_section *s = report_sections; s != NULL; s = s->next) {
		char *live = s->fn ? section_render(s) : NULL;

		core_json_object_begin(j);
		core_json_key(j, "name");
		core_json_str(j, s->name);
		core_json_key(j, "live");
		core_json_bool(j, s->fn != NULL);
		core_json_key(j, "data");
		core_json_raw(j, s->fn ? (live ? live : "null") : (s->snapshot ? s->snapshot : "null"));
		core_json_object_end(j);
		free(live);
	}
	core_json_array_end(j);
	core_json_object_end(j);
	if (core_json_text(j) != NULL)
		text = core_strdup(core_json_text(j));
	core_json_free(j);
	return text;
}

doca_error_t core_report_write(void)
{
	FILE *f;
	char *text;
	bool to_stderr;

	/* A forked child neither writes nor truncates the parent's report. */
	if (!report_on || getpid() != report_owner)
		return DOCA_SUCCESS;
	pthread_mutex_lock(&report_lock);
	text = report_render();
	pthread_mutex_unlock(&report_lock);
	if (text == NULL)
		return DOCA_ERROR_NO_MEMORY;
	to_stderr = strcmp(report_path, "-") == 0;
	f = to_stderr ? stderr : fopen(report_path, "w");
	if (f == NULL) {
		fprintf(stderr, "flowdpa: FLOWDPA_REPORT=\"%s\": cannot write the report: %s\n", report_path,
			strerror(errno));
		free(text);
		return DOCA_ERROR_IO_FAILED;
	}
	fputs(text, f);
	fputc('\n', f);
	if (to_stderr)
		fflush(f);
	else
		fclose(f);
	free(text);
	return DOCA_SUCCESS;
}

static void report_at_exit(void)
{
	/* A file that cannot be written was reported with its path; say the rest. */
	if (core_report_write() == DOCA_ERROR_NO_MEMORY)
		fprintf(stderr, "flowdpa: FLOWDPA_REPORT: out of memory while rendering the report\n");
}

void core_report_configure(const char *path)
{
	static bool atexit_done;

	pthread_mutex_lock(&report_lock);
	while (report_sections != NULL) {
		struct core_report_section *s = report_sections;

		report_sections = s->next;
		free(s->snapshot);
		free(s);
	}
	report_on = path != NULL && path[0] != '\0';
	report_owner = getpid();
	snprintf(report_path, sizeof(report_path), "%s", report_on ? path : "");
	pthread_mutex_unlock(&report_lock);
	if (report_on && !atexit_done) {
		atexit(report_at_exit);
		atexit_done = true;
	}
}
