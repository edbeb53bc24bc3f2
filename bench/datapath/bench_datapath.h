/*
 * bench_datapath.h - what the parts of bench_datapath share: the two ports, the W1 pipe
 * (root BASIC, exact match on the IPv4 destination, per-entry counter and UDP
 * source-port rewrite, fwd port 1, miss counted and dropped), timing, medians, and the
 * part entry points (bench_datapath.c: W1/W2 datapath and its checks; bench_insert.c:
 * insertion rates, pipe creation and the bytes-per-entry scale child).
 */
#ifndef BENCH_DATAPATH_H_
#define BENCH_DATAPATH_H_

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <doca_flow.h>

struct entries_status;

extern struct doca_flow_port *bench_ports[2];
extern int bench_reps; /* each figure is the median of this many runs */
extern bool bench_quick;

static inline double bench_now(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

_Noreturn void bench_die(const char *what, doca_error_t err);
#define TRY(call)                                        \
	do {                                             \
		doca_error_t _e = (call);                \
		if (_e != DOCA_SUCCESS)                  \
			bench_die(#call, _e);            \
	} while (0)

/* Print key=median of v[0..n-1] and key_range=min-max (sorts v). */
void bench_print_median(const char *key, double *v, int n);
/* The median of v[0..n-1] (sorts v). */
double bench_median(double *v, int n);

/* W1's rewrite value of key i (host order). */
static inline uint16_t w1_sport(uint32_t i)
{
	return (uint16_t)(10000 + i % 50000);
}
/* Create the W1 pipe for n entries (not timed by the caller's fill). */
struct doca_flow_pipe *w1_pipe_create(uint32_t n, const char *name);
/*
 * Add keys first .. first+count-1 to a W1 pipe on pipe queue `queue`, batched
 * (WAIT_FOR_BATCH, entries_process every 1024), completions counted in *st; e (may be
 * NULL) gets the entries at e[key].
 */
void w1_fill(struct doca_flow_pipe *pipe, uint32_t first, uint32_t count, uint16_t queue,
	     struct entries_status *st, struct doca_flow_pipe_entry **e);

/* doca_flow_init with 2 queues, ports 0 and 1 started, no captures kept; stop: the ports
 * and doca_flow_destroy. A destroyed pipe keeps part of its memory until
 * doca_flow_destroy (docs/flow.md), so parts that fill big tables restart DOCA Flow
 * after each fill to free them. */
void bench_flow_start(void);
void bench_flow_stop(void);
void bench_flow_restart(void);

/* Resident set size of this process in bytes (/proc/self/statm). */
uint64_t bench_rss_bytes(void);

/* Send `pkts` W1 frames on nw threads over keys 0..n-1 (each worker walks its own
 * disjoint range, or all n keys when shared; full-period LCG when lcg, else +1);
 * returns Mpps (1 worker: its CPU time). */
double bench_run_workers(int nw, bool lcg, uint32_t n, uint64_t pkts, int burst, int w2, bool shared);

/* The bytes per entry (BASIC, HASH) and the one-queue BASIC insertion rate (M/s) of the
 * 1M-entry parts, 0 until measured: they size and time the 16M parts. */
extern double bench_bpe_basic, bench_bpe_hash, bench_basic_meps;
/* Whether `fills` fills of an n-entry table fit this machine's free memory and a few
 * minutes; if not, prints PART_skipped=why. */
bool bench_fits(const char *part, uint32_t n, bool basic, int fills);

/* BASIC 1q/2q (when basic) and HASH insertion at n entries. */
void bench_insert_part(uint32_t n, bool basic);
/* -F: bench_reps fills of 1M BASIC entries with nq (1 or 2) queues, pinned as the
 * insertion part pins them (one queue: the first CPU), each in its own pipe on warm
 * memory; every rate and their median. Alternated runs of two builds compare a change. */
void bench_insert_fills(int nq);
/* Bytes per entry of a HASH and/or BASIC table of n entries, fresh processes. */
void bench_scale_part(uint32_t n, bool hash, bool basic);
/* Issue 13's capacity target, a 100M-entry HASH pipe and a 60M-entry BASIC pipe in
 * 24 GB, on the powers of two above them (the walks need one): 2^27 HASH and 2^26 BASIC
 * entries, each filled and walked in a fresh process as the scale part does; the
 * process's whole RSS, and the two added up (each counts the fixed part once more, so
 * the sum bounds both tables in one process from above). */
void bench_fit_part(void);
int bench_scale_child(const char *type, uint32_t n); /* -S: one measurement, then exit */

#endif
