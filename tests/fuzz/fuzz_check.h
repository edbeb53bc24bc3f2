/*
 * fuzz_check.h - what every harness of tests/fuzz shares: FUZZ_CHECK (an invariant that
 * does not hold is a defect: print it and abort, which libFuzzer and the regression
 * runner both report with the input) and a byte reader over the fuzz input.
 */
#ifndef FLOWDPA_FUZZ_CHECK_H_
#define FLOWDPA_FUZZ_CHECK_H_

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <doca_error.h>
#include <doca_log.h>

#define FUZZ_CHECK(cond, ...)                                                                 \
	do {                                                                                  \
		if (!(cond)) {                                                                \
			fprintf(stderr, "%s:%d: fuzz invariant broken: %s: ", __FILE__, __LINE__, #cond); \
			fprintf(stderr, __VA_ARGS__);                                         \
			fprintf(stderr, "\n");                                                \
			abort();                                                              \
		}                                                                             \
	} while (0)

/* An expected return code: name both codes on a mismatch. */
#define FUZZ_EXPECT(got, want, what)                                                          \
	do {                                                                                  \
		doca_error_t got_ = (got), want_ = (want);                                    \
		FUZZ_CHECK(got_ == want_, "%s returned %s, the model expects %s", (what),     \
			   doca_error_get_name(got_), doca_error_get_name(want_));            \
	} while (0)

/* flowdpa's own log lines cost more than most inputs: off, unless
 * FLOWDPA_TEST_FUZZ_LOG is set (to see why a regression input fails). */
static inline void fuzz_quiet_logs(void)
{
	if (getenv("FLOWDPA_TEST_FUZZ_LOG") == NULL)
		(void)doca_log_level_set_global_sdk_limit(DOCA_LOG_LEVEL_DISABLE);
}

/* The input as a stream of bytes; past its end every read is 0. */
struct fuzz_in {
	const uint8_t *p;
	size_t n;
};

static inline uint8_t fuzz_u8(struct fuzz_in *in)
{
	if (in->n == 0)
		return 0;
	in->n--;
	return *in->p++;
}

#endif /* FLOWDPA_FUZZ_CHECK_H_ */
