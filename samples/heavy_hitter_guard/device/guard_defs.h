/* guard_defs.h - what the host and the DPA kernel of heavy_hitter_guard share: the
 * layout of the guard's state in DPA memory (the device heap; the host allocates it with
 * doca_dpa_mem_alloc and reads it back with doca_dpa_d2h_memcpy). */
#ifndef GUARD_DEFS_H_
#define GUARD_DEFS_H_
#include <stdint.h>

#define GUARD_MAX_ENTRIES 1024 /* hash-pipe entries = memory cells */
#define GUARD_MAX_EVENTS 64    /* disable/enable decisions reported per period */
#define GUARD_QUEUE_SIZE 64    /* GENERAL queue depth the kernel keeps in flight */

enum guard_event_kind { GUARD_EV_DISABLE = 1, GUARD_EV_ENABLE = 2 };

struct guard_event {
	uint32_t entry;
	uint32_t kind;	/* enum guard_event_kind */
	uint64_t rate;	/* packets of the entry counted in this period */
};

struct guard_state {
	uint64_t now[GUARD_MAX_ENTRIES];   /* this period's read of the counters (cell i = entry i) */
	uint64_t prev[GUARD_MAX_ENTRIES];  /* last period's */
	uint32_t until[GUARD_MAX_ENTRIES]; /* 0: enabled; else the period that re-enables the entry */
	uint32_t nr_events;		   /* events of the last period */
	uint32_t pad;
	struct guard_event ev[GUARD_MAX_EVENTS];
	/* Totals over the run, for the summary. */
	uint64_t read_requests, read_completions, read_failed;
	uint64_t entry_requests, entry_completions, entry_failed;
	uint64_t disables, enables;
};

#endif /* GUARD_DEFS_H_ */
