/* pcap_file.h - a whole pcap file (the bundled trace) in memory, read with libpcap, so
 * that the host can feed it frame by frame. */
#ifndef PCAP_FILE_H_
#define PCAP_FILE_H_
#include <stdint.h>

struct pcap_trace {
	uint32_t nr;	    /* frames */
	uint32_t *len;	    /* frame i: len[i] bytes at data + off[i] */
	uint64_t *off;
	uint8_t *data;
};

/* Load a whole pcap file; 0 on success, else -1 with a message on stderr. */
int pcap_trace_load(const char *path, struct pcap_trace *t);
void pcap_trace_free(struct pcap_trace *t);

#endif /* PCAP_FILE_H_ */
