/*
 * json.c - a small streaming JSON writer for the report and trace files.
 *
 * Only writing is needed (flowdpa never parses JSON), and the writer must keep commas
 * and nesting right without every caller tracking them; that is all this does.
 */
#include "core.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JSON_MAX_DEPTH 32

struct core_json {
	char *buf;
	size_t len;
	size_t cap;
	bool oom;
	uint32_t depth;
	bool after_key;
	bool need_comma[JSON_MAX_DEPTH + 1];
};

struct core_json *core_json_new(void)
{
	struct core_json *j = core_calloc(1, sizeof(*j));

	if (j == NULL)
		return NULL;
	j->cap = 256;
	j->buf = core_malloc(j->cap);
	if (j->buf == NULL) {
		free(j);
		return NULL;
	}
	j->buf[0] = '\0';
	return j;
}

void core_json_free(struct core_json *j)
{
	if (j == NULL)
		return;
	free(j->buf);
	free(j);
}

static void json_append(struct core_json *j, const char *s, size_t n)
{
	if (j == NULL || j->oom)
		return;
	if (j->len + n + 1 > j->cap) {
		size_t cap = j->cap;
		char *nb;

		while (j->len + n + 1 > cap)
			cap *= 2;
		nb = core_realloc(j->buf, cap);
		if (nb == NULL) {
			j->oom = true;
			return;
		}
		j->buf = nb;
		j->cap = cap;
	}
	memcpy(j->buf + j->len, s, n);
	j->len += n;
	j->buf[j->len] = '\0';
}

static void json_printf(struct core_json *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void json_printf(struct core_json *j, const char *fmt, ...)
{
	char tmp[64];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n > 0)
		json_append(j, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

/* Separator before a value: none after a key, a comma after a sibling. */
static void json_value_prefix(struct core_json *j)
{
	if (j == NULL)
		return;
	if (j->after_key)
		j->after_key = false;
	else if (j->need_comma[j->depth])
		json_append(j, ",", 1);
	j->need_comma[j->depth] = true;
}

/* The escaped form of one byte into seq; returns its length (1, 2 or 6). */
static size_t json_escape_char(unsigned char c, char seq[6])
{
	static const char hex[] = "0123456789abcdef";

	switch (c) {
	case '"':
	case '\\':
		seq[0] = '\\';
		seq[1] = (char)c;
		return 2;
	case '\n':
		memcpy(seq, "\\n", 2);
		return 2;
	case '\t':
		memcpy(seq, "\\t", 2);
		return 2;
	case '\r':
		memcpy(seq, "\\r", 2);
		return 2;
	default:
		if (c >= 0x20) {
			seq[0] = (char)c;
			return 1;
		}
		memcpy(seq, "\\u00", 4);
		seq[4] = hex[c >> 4];
		seq[5] = hex[c & 15];
		return 6;
	}
}

/*
 * Writes whole escape sequences only, and always the closing quote, so that a string
 * cut to fit outlen is still one valid JSON string. Returns the full length needed.
 */
size_t core_json_escape(const char *in, char *out, size_t outlen)
{
	size_t need = 1;
	size_t w = 0;
	bool cut = outlen < 3;
	char seq[6];

	if (!cut)
		out[w++] = '"';
	for (const unsigned char *p = (const unsigned char *)(in ? in : ""); *p; p++) {
		size_t n = json_escape_char(*p, seq);

		need += n;
		if (!cut && w + n + 2 <= outlen) {
			memcpy(out + w, seq, n);
			w += n;
		} else {
			cut = true;
		}
	}
	need += 1;
	if (outlen >= 3) {
		out[w++] = '"';
		out[w] = '\0';
	} else if (outlen > 0) {
		out[0] = '\0';
	}
	return need;
}

static void json_string(struct core_json *j, const char *s)
{
	char small[256];
	char *big;
	size_t need;

	if (j == NULL)
		return;
	need = core_json_escape(s, small, sizeof(small));
	if (need < sizeof(small)) {
		json_append(j, small, need);
		return;
	}
	big = core_malloc(need + 1);
	if (big == NULL) {
		j->oom = true;
		return;
	}
	core_json_escape(s, big, need + 1);
	json_append(j, big, need);
	free(big);
}

void core_json_object_begin(struct core_json *j)
{
	json_value_prefix(j);
	json_append(j, "{", 1);
	if (j != NULL && j->depth < JSON_MAX_DEPTH)
		j->need_comma[++j->depth] = false;
}

void core_json_object_end(struct core_json *j)
{
	if (j != NULL && j->depth > 0)
		j->depth--;
	json_append(j, "}", 1);
}

void core_json_array_begin(struct core_json *j)
{
	json_value_prefix(j);
	json_append(j, "[", 1);
	if (j != NULL && j->depth < JSON_MAX_DEPTH)
		j->need_comma[++j->depth] = false;
}

void core_json_array_end(struct core_json *j)
{
	if (j != NULL && j->depth > 0)
		j->depth--;
	json_append(j, "]", 1);
}

void core_json_key(struct core_json *j, const char *key)
{
	json_value_prefix(j);
	json_string(j, key);
	json_append(j, ":", 1);
	if (j != NULL)
		j->after_key = true;
}

void core_json_str(struct core_json *j, const char *value)
{
	json_value_prefix(j);
	json_string(j, value);
}

void core_json_u64(struct core_json *j, uint64_t value)
{
	json_value_prefix(j);
	json_printf(j, "%" PRIu64, value);
}

void core_json_i64(struct core_json *j, int64_t value)
{
	json_value_prefix(j);
	json_printf(j, "%" PRId64, value);
}

void core_json_double(struct core_json *j, double value)
{
	json_value_prefix(j);
	/* JSON has no NaN or infinity. */
	if (!isfinite(value))
		json_append(j, "null", 4);
	else
		json_printf(j, "%.17g", value);
}

void core_json_bool(struct core_json *j, bool value)
{
	json_value_prefix(j);
	json_append(j, value ? "true" : "false", value ? 4 : 5);
}

void core_json_raw(struct core_json *j, const char *json)
{
	json_value_prefix(j);
	json_append(j, json, strlen(json));
}

const char *core_json_text(const struct core_json *j)
{
	return (j == NULL || j->oom) ? NULL : j->buf;
}
