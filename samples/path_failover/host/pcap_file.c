/* pcap_file.c - see pcap_file.h. */
#include "pcap_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t rd32(const uint8_t *p, int swap)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return swap ? __builtin_bswap32(v) : v;
}

int pcap_trace_load(const char *path, struct pcap_trace *t)
{
	FILE *f = fopen(path, "rb");
	uint8_t gh[24], rh[16];
	int swap;
	memset(t, 0, sizeof(*t));
	if (f == NULL) {
		perror(path);
		return -1;
	}
	if (fread(gh, 1, sizeof(gh), f) != sizeof(gh))
		goto bad;
	if (rd32(gh, 0) == 0xa1b2c3d4 || rd32(gh, 0) == 0xa1b23c4d)
		swap = 0;
	else if (rd32(gh, 1) == 0xa1b2c3d4 || rd32(gh, 1) == 0xa1b23c4d)
		swap = 1;
	else
		goto bad;
	if (fseek(f, 0, SEEK_END) != 0)
		goto bad;
	long size = ftell(f);
	if (size < 24 || fseek(f, 24, SEEK_SET) != 0)
		goto bad;
	uint32_t cap = (uint32_t)(size / 16) + 1;
	t->len = calloc(cap, sizeof(*t->len));
	t->off = calloc(cap, sizeof(*t->off));
	t->data = malloc((size_t)size);
	if (t->len == NULL || t->off == NULL || t->data == NULL)
		goto bad;
	uint64_t used = 0;
	while (fread(rh, 1, sizeof(rh), f) == sizeof(rh)) {
		uint32_t incl = rd32(rh + 8, swap);
		if (incl > 65535 || fread(t->data + used, 1, incl, f) != incl)
			goto bad;
		t->len[t->nr] = incl;
		t->off[t->nr] = used;
		t->nr++;
		used += incl;
	}
	fclose(f);
	return 0;
bad:
	fprintf(stderr, "%s: not a readable pcap file\n", path);
	fclose(f);
	pcap_trace_free(t);
	return -1;
}

void pcap_trace_free(struct pcap_trace *t)
{
	free(t->len);
	free(t->off);
	free(t->data);
	memset(t, 0, sizeof(*t));
}
