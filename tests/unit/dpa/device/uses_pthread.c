/* uses_pthread.c - must not build: a DPA has no pthreads. */
#include <pthread.h>
#include <doca_dpa_dev.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

__dpa_global__ void bad_kernel(void)
{
	pthread_mutex_lock(&lock);
}
