/* failover_defs.h - what the host and the DPA kernel of path_failover share. */
#ifndef FAILOVER_DEFS_H_
#define FAILOVER_DEFS_H_
#include <stdint.h>

#define FO_NR_PATHS 4	  /* paths = UDP source ports FO_PATH_PORT(0..3) */
#define FO_NR_ENTRIES 64  /* hash-pipe entries; entry i starts on path i % FO_NR_PATHS */
#define FO_PATH_PORT(p) ((uint16_t)(10000 + (p)))

/* The kernel's state in DPA memory (zeroed by the host, then path[] set). */
struct fo_state {
	uint64_t health[FO_NR_PATHS]; /* the last read of the health cells: 0 up, else failed */
	uint32_t path[FO_NR_ENTRIES]; /* the path each entry uses now */
	uint32_t moved;		      /* entries moved by the last check */
	uint32_t pad;
	uint64_t read_requests, read_completions, replace_requests, replace_completions, failed;
};

#endif /* FAILOVER_DEFS_H_ */
