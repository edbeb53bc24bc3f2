/*
 * compat_stage.c - the staged traffic of a compat run (run_sample.py, "stages" in
 * expect/<name>.json): the tester's side of a sample whose yaml sends its packets in
 * stages, each while the sample waits for it ("Wait ... for ... packets to arrive").
 * A sample that ages or removes entries between stages must see each stage's packets at
 * that point, not all of them when the port starts (FLOWDPA_PORTn_RX plays a pcap once).
 *
 * With COMPAT_STAGE_FIFO set, a thread started before main reads lines "PORT PCAP" from
 * that FIFO, written by run_sample.py when the sample logs a stage's trigger line, and
 * runs each frame of PCAP through port PORT's pipeline (flowdpa_port_inject: the same
 * path a FLOWDPA_PORTn_RX source takes, so FLOWDPA_PORTn_TX captures what leaves). After
 * each line it answers "done PORT N" on COMPAT_STAGE_ACK (N frames run), so that the
 * harness knows a stage was sent before it reads on. EOF on the FIFO ends the thread.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <doca_log.h>
#include <flowdpa.h>

DOCA_LOG_REGISTER(COMPAT_STAGE);

/* Runs every frame of a classic little-endian pcap file into port; -1 when unreadable. */
static long play(unsigned port, const char *path)
{
	static uint8_t frame[FLOWDPA_MAX_FRAME];
	uint8_t hdr[24], rec[16];
	long n = 0;
	FILE *f = fopen(path, "rb");
	if (f == NULL || fread(hdr, 1, sizeof(hdr), f) != sizeof(hdr)) {
		if (f != NULL)
			fclose(f);
		return -1;
	}
	while (fread(rec, 1, sizeof(rec), f) == sizeof(rec)) {
		uint32_t incl = (uint32_t)rec[8] | (uint32_t)rec[9] << 8 | (uint32_t)rec[10] << 16 |
				(uint32_t)rec[11] << 24;
		if (incl > sizeof(frame) || fread(frame, 1, incl, f) != incl) {
			n = -1;
			break;
		}
		doca_error_t r = flowdpa_port_inject((uint16_t)port, frame, incl);
		if (r != DOCA_SUCCESS) {
			DOCA_LOG_ERR("staged traffic: port %u refused a frame of %s: %s", port, path,
				     doca_error_get_descr(r));
			n = -1;
			break;
		}
		n++;
	}
	fclose(f);
	return n;
}

static void *stager(void *arg)
{
	(void)arg;
	FILE *in = fopen(getenv("COMPAT_STAGE_FIFO"), "r");
	FILE *ack = fopen(getenv("COMPAT_STAGE_ACK"), "w");
	char line[4096], path[4000];
	unsigned port;
	if (in == NULL || ack == NULL) {
		DOCA_LOG_ERR("staged traffic: cannot open COMPAT_STAGE_FIFO/COMPAT_STAGE_ACK");
		return NULL;
	}
	while (fgets(line, sizeof(line), in) != NULL) {
		if (sscanf(line, "%u %3999s", &port, path) != 2)
			continue;
		fprintf(ack, "done %u %ld\n", port, play(port, path));
		fflush(ack);
	}
	fclose(in);
	fclose(ack);
	return NULL;
}

__attribute__((constructor)) static void compat_stage_start(void)
{
	pthread_t t;
	if (getenv("COMPAT_STAGE_FIFO") == NULL || getenv("COMPAT_STAGE_ACK") == NULL)
		return;
	if (pthread_create(&t, NULL, stager, NULL) == 0)
		pthread_detach(t);
}
