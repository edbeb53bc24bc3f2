/* pcap_file.c - see pcap_file.h. Reads with libpcap. */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* libpcap's headers use the BSD u_int / u_char types */
#endif
#include "pcap_file.h"

#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Append one frame, growing the arrays by doubling. */
static int trace_add(struct pcap_trace *t, const uint8_t *frame, uint32_t len, uint32_t *cap, uint64_t *bytes_cap)
{
	uint64_t used = t->nr ? t->off[t->nr - 1] + t->len[t->nr - 1] : 0;
	if (t->nr == *cap) {
		*cap = *cap ? *cap * 2 : 1024;
		uint32_t *l = realloc(t->len, *cap * sizeof(*l));
		if (l == NULL)
			return -1;
		t->len = l;
		uint64_t *o = realloc(t->off, *cap * sizeof(*o));
		if (o == NULL)
			return -1;
		t->off = o;
	}
	if (used + len > *bytes_cap) {
		*bytes_cap = (used + len) * 2;
		uint8_t *d = realloc(t->data, *bytes_cap);
		if (d == NULL)
			return -1;
		t->data = d;
	}
	memcpy(t->data + used, frame, len);
	t->len[t->nr] = len;
	t->off[t->nr] = used;
	t->nr++;
	return 0;
}

int pcap_trace_load(const char *path, struct pcap_trace *t)
{
	char err[PCAP_ERRBUF_SIZE];
	memset(t, 0, sizeof(*t));
	pcap_t *p = pcap_open_offline(path, err);
	if (p == NULL) {
		fprintf(stderr, "%s: %s\n", path, err);
		return -1;
	}
	struct pcap_pkthdr *h;
	const u_char *frame;
	uint32_t cap = 0;
	uint64_t bytes_cap = 0;
	int rc;
	while ((rc = pcap_next_ex(p, &h, &frame)) == 1)
		if (trace_add(t, frame, h->caplen, &cap, &bytes_cap) != 0) {
			fprintf(stderr, "%s: out of memory\n", path);
			rc = -1;
			break;
		}
	if (rc == -1 && t->nr == 0)
		fprintf(stderr, "%s: %s\n", path, pcap_geterr(p));
	pcap_close(p);
	if (rc != PCAP_ERROR_BREAK) {
		pcap_trace_free(t);
		return -1;
	}
	return 0;
}

void pcap_trace_free(struct pcap_trace *t)
{
	free(t->len);
	free(t->off);
	free(t->data);
	memset(t, 0, sizeof(*t));
}
