/*
 * dpa_test_defs.h - types shared by the host and device sides of the DPA tests (like the
 * samples' *_defs.h): structs passed by value to the kernels and RPCs of
 * dpa_test_kernels.c.
 */
#ifndef DPA_TEST_DEFS_H_
#define DPA_TEST_DEFS_H_

#include <stdint.h>

/* 24 bytes, mixed widths: passed by value to the 13-argument kernel. */
struct dpa_test_triple {
	uint32_t a;
	uint64_t b;
	uint16_t c;
};

/* The ping_pong-style RPC argument (two of them by value). */
struct dpa_test_thread_arg {
	uint64_t dev_buf;
	uint32_t count;
	uint32_t seed;
	uint64_t tag;
};

/* What the 13-argument kernel writes back: every argument as it arrived. */
struct dpa_test_args13 {
	uint32_t u32;
	uint64_t u64;
	int32_t i32;
	uint64_t ptr;
	uint8_t u8;
	int16_t i16;
	double dbl;
	float flt;
	struct dpa_test_triple triple;
	uint32_t mmap;
	int64_t i64;
	uint64_t last;
	char ch;
};

/* State of the DPA-thread test kernel (in device memory, passed as its argument). */
struct dpa_test_thread_state {
	uint64_t runs;	      /* runs so far */
	uint64_t done_event;  /* sync-event handle, incremented at the end of every run */
	uint64_t tls_seen;    /* doca_dpa_dev_thread_get_local_storage() in the last run */
	uint64_t finish_at;   /* the run that calls doca_dpa_dev_thread_finish */
	uint64_t rank_seen;   /* thread rank / num_threads in the last run (0 << 32 | 1 expected) */
};

#endif /* DPA_TEST_DEFS_H_ */
