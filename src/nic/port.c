/*
 * port.c - NIC ports: started state, root pipe, statistics, and the capture rings of
 * what leaves a port (TX), reaches its host queue (HOST) or its kernel target
 * (KERNEL), plus the TX pcap sink.
 * The packet path reads nic_port_hot[] only; statistics are added once per burst.
 */
#include <pcap/pcap.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include <core/core.h>

#include "nic_internal.h"

DOCA_LOG_REGISTER(NIC::PORT);

#define CAPTURE_DEFAULT_DEPTH 1024

struct capture_ring {
	uint32_t depth, head, count;
	uint8_t (*frames)[NIC_MAX_FRAME];
	uint32_t *lens;
};

/*
 * A port's packet counts, one set per counter shard as entry counters have (struct
 * nic_counter): the datapath thread owning a shard adds to it with plain stores, the
 * others share the last with atomic adds. An atomic add per counter per burst was a
 * barrier that waited for the burst's stores: a quarter of a W1 N=1024 burst's time.
 */
struct port_counts {
	_Alignas(64) uint64_t rx_pkts, rx_bytes, rx_errors, tx_pkts, tx_bytes, host, kernel, drops;
	uint64_t drop[NIC_DROP_NR_REASONS];
};

struct port_cold {
	pthread_mutex_t lock; /* rings, dumper, start/stop */
	struct capture_ring ring[3]; /* per enum nic_capture_queue */
	pcap_dumper_t *dumper[3]; /* per enum nic_capture_queue: FLOWDPA_PORTn_TX, _KERNEL */
	struct port_counts cnt[NIC_CNT_SHARDS]; /* summed by nic_port_stats_get */
	_Atomic uint64_t overflow;
	/* nic_port_note_down_drops, per destination port: when the next line may be logged,
	 * the drops not logged yet. */
	_Atomic uint64_t down_next_ns[NIC_MAX_PORTS], down_unlogged[NIC_MAX_PORTS];
};

struct nic_port_hot nic_port_hot[NIC_MAX_PORTS];
static struct port_cold ports[NIC_MAX_PORTS];
static pthread_once_t ports_once = PTHREAD_ONCE_INIT;

static void ports_init(void)
{
	for (int i = 0; i < NIC_MAX_PORTS; i++)
		pthread_mutex_init(&ports[i].lock, NULL);
}

/* Replace the ring with an empty one of depth frames; on NO_MEMORY the old one is kept. */
static doca_error_t ring_resize(struct capture_ring *r, uint32_t depth)
{
	uint8_t(*frames)[NIC_MAX_FRAME] = NULL;
	uint32_t *lens = NULL;

	if (depth != 0) {
		frames = core_malloc((size_t)depth * NIC_MAX_FRAME);
		lens = frames ? core_malloc((size_t)depth * sizeof(uint32_t)) : NULL;
		if (lens == NULL) {
			free(frames);
			return DOCA_ERROR_NO_MEMORY;
		}
	}
	free(r->frames);
	free(r->lens);
	memset(r, 0, sizeof(*r));
	r->frames = frames;
	r->lens = lens;
	r->depth = depth;
	return DOCA_SUCCESS;
}

static void update_capture_on(uint16_t id)
{
	struct port_cold *c = &ports[id];
	atomic_store_explicit(&nic_port_hot[id].capture_on[NIC_CAPTURE_TX], c->ring[0].depth > 0 || c->dumper[0],
			      memory_order_release);
	atomic_store_explicit(&nic_port_hot[id].capture_on[NIC_CAPTURE_HOST], c->ring[1].depth > 0,
			      memory_order_release);
	atomic_store_explicit(&nic_port_hot[id].capture_on[NIC_CAPTURE_KERNEL], c->ring[2].depth > 0 || c->dumper[2],
			      memory_order_release);
}

doca_error_t nic_port_start(uint16_t id)
{
	pthread_once(&ports_once, ports_init);
	if (id >= NIC_MAX_PORTS) {
		CORE_LOG_ERR("port %u: id out of range (max %u)", id, NIC_MAX_PORTS - 1);
		return DOCA_ERROR_INVALID_VALUE;
	}
	struct port_cold *c = &ports[id];
	/* Before the port takes traffic, so the report's entry hits miss none of it. */
	if (core_report_enabled())
		nic_hits_enable(true);
	pthread_mutex_lock(&c->lock);
	if (atomic_load(&nic_port_hot[id].started)) {
		pthread_mutex_unlock(&c->lock);
		CORE_LOG_ERR("port %u: already started", id);
		return DOCA_ERROR_ALREADY_EXIST;
	}
	/* Word by word: a stats query may read them meanwhile. */
	for (int sh = 0; sh < NIC_CNT_SHARDS; sh++)
		for (size_t w = 0; w < sizeof(c->cnt[sh]) / sizeof(uint64_t); w++)
			__atomic_store_n((uint64_t *)(void *)&c->cnt[sh] + w, 0, __ATOMIC_RELAXED);
	atomic_store(&c->overflow, 0);
	for (int i = 0; i < NIC_MAX_PORTS; i++) {
		atomic_store(&c->down_next_ns[i], 0);
		atomic_store(&c->down_unlogged[i], 0);
	}
	doca_error_t err = ring_resize(&c->ring[0], CAPTURE_DEFAULT_DEPTH);
	if (err == DOCA_SUCCESS)
		err = ring_resize(&c->ring[1], CAPTURE_DEFAULT_DEPTH);
	if (err == DOCA_SUCCESS)
		err = ring_resize(&c->ring[2], CAPTURE_DEFAULT_DEPTH);
	if (err != DOCA_SUCCESS) {
		ring_resize(&c->ring[0], 0);
		ring_resize(&c->ring[1], 0);
		pthread_mutex_unlock(&c->lock);
		CORE_LOG_ERR("port %u: out of memory (capture rings of %u frames)", id, CAPTURE_DEFAULT_DEPTH);
		return err;
	}
	update_capture_on(id);
	atomic_store_explicit(&nic_port_hot[id].root, NULL, memory_order_release);
	atomic_store_explicit(&nic_port_hot[id].manager, -1, memory_order_release);
	nic_port_hot[id].trace_pid = 1;
	atomic_store_explicit(&nic_port_hot[id].started, true, memory_order_release);
	pthread_mutex_unlock(&c->lock);
	return DOCA_SUCCESS;
}

doca_error_t nic_port_stop(uint16_t id)
{
	pthread_once(&ports_once, ports_init);
	if (id >= NIC_MAX_PORTS)
		return DOCA_ERROR_INVALID_VALUE;
	if (!atomic_load(&nic_port_hot[id].started)) {
		CORE_LOG_ERR("port %u: not started", id);
		return DOCA_ERROR_NOT_FOUND;
	}
	/* Sources first: nothing may enter the port while it goes away. */
	nic_traffic_detach(id);
	if (core_trace_enabled()) /* the port's final counts on its counter track */
		nic_trace_port_counters(id, true);
	struct port_cold *c = &ports[id];
	atomic_store_explicit(&nic_port_hot[id].started, false, memory_order_release);
	atomic_store_explicit(&nic_port_hot[id].capture_on[0], false, memory_order_release);
	atomic_store_explicit(&nic_port_hot[id].capture_on[1], false, memory_order_release);
	atomic_store_explicit(&nic_port_hot[id].capture_on[2], false, memory_order_release);
	nic_dp_synchronize();
	pthread_mutex_lock(&c->lock);
	ring_resize(&c->ring[0], 0);
	ring_resize(&c->ring[1], 0);
	ring_resize(&c->ring[2], 0);
	doca_error_t rc = DOCA_SUCCESS;

	for (int q = NIC_CAPTURE_TX; q <= NIC_CAPTURE_KERNEL; q++) {
		if (c->dumper[q] == NULL)
			continue;
		/* The one place a pcap capture is completed. A full disk shows here (a failed
		 * write during traffic leaves the stream's error flag set); the capture would
		 * silently lack its tail otherwise. */
		if (pcap_dump_flush(c->dumper[q]) != 0 || ferror(pcap_dump_file(c->dumper[q]))) {
			CORE_LOG_ERR("port %u: writing the FLOWDPA_PORT%u_%s capture failed: the file is incomplete", id,
				     id, q == NIC_CAPTURE_TX ? "TX" : "KERNEL");
			rc = DOCA_ERROR_IO_FAILED;
		}
		pcap_dump_close(c->dumper[q]);
		c->dumper[q] = NULL;
	}
	pthread_mutex_unlock(&c->lock);
	return rc;
}

doca_error_t nic_port_set_manager(uint16_t id, int32_t manager_id)
{
	if (id >= NIC_MAX_PORTS || manager_id >= NIC_MAX_PORTS || manager_id < -1 || manager_id == id) {
		CORE_LOG_ERR("port %u: bad switch manager id %d", id, manager_id);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (!nic_port_started(id)) {
		CORE_LOG_ERR("port %u: not started", id);
		return DOCA_ERROR_BAD_STATE;
	}
	atomic_store_explicit(&nic_port_hot[id].manager, manager_id, memory_order_release);
	return DOCA_SUCCESS;
}

void nic_port_set_trace_pid(uint16_t id, uint32_t pid)
{
	if (id < NIC_MAX_PORTS)
		nic_port_hot[id].trace_pid = pid;
}

bool nic_port_started(uint16_t id)
{
	return id < NIC_MAX_PORTS && atomic_load_explicit(&nic_port_hot[id].started, memory_order_acquire);
}

doca_error_t nic_port_stats_get(uint16_t id, struct nic_port_stats *s)
{
	if (id >= NIC_MAX_PORTS || s == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	struct port_cold *c = &ports[id];
	memset(s, 0, sizeof(*s));
	for (int sh = 0; sh < NIC_CNT_SHARDS; sh++) {
		const struct port_counts *k = &c->cnt[sh];
		s->rx_pkts += __atomic_load_n(&k->rx_pkts, __ATOMIC_RELAXED);
		s->rx_bytes += __atomic_load_n(&k->rx_bytes, __ATOMIC_RELAXED);
		s->rx_errors += __atomic_load_n(&k->rx_errors, __ATOMIC_RELAXED);
		s->tx_pkts += __atomic_load_n(&k->tx_pkts, __ATOMIC_RELAXED);
		s->tx_bytes += __atomic_load_n(&k->tx_bytes, __ATOMIC_RELAXED);
		s->host_pkts += __atomic_load_n(&k->host, __ATOMIC_RELAXED);
		s->kernel_pkts += __atomic_load_n(&k->kernel, __ATOMIC_RELAXED);
		s->drops += __atomic_load_n(&k->drops, __ATOMIC_RELAXED);
		for (int r = 0; r < NIC_DROP_NR_REASONS; r++)
			s->drop_reason[r] += __atomic_load_n(&k->drop[r], __ATOMIC_RELAXED);
	}
	s->capture_overflow = atomic_load(&c->overflow);
	return DOCA_SUCCESS;
}

const char *nic_drop_reason_name(unsigned reason)
{
	static const char *const names[NIC_DROP_NR_REASONS] = {
		[NIC_DROP_FWD_DROP] = "fwd_drop",
		[NIC_DROP_MISS] = "miss_no_fwd",
		[NIC_DROP_NO_ROOT] = "no_root_pipe",
		[NIC_DROP_PIPE_DESTROYED] = "pipe_destroyed",
		[NIC_DROP_PIPE_LOOP] = "pipe_loop",
		[NIC_DROP_PORT_DOWN] = "port_not_started",
	};
	return reason < NIC_DROP_NR_REASONS ? names[reason] : "unknown";
}

doca_error_t nic_port_set_root(uint16_t id, struct nic_pipe *root, struct nic_pipe *expected)
{
	struct nic_pipe *exp = expected;
	if (atomic_compare_exchange_strong_explicit(&nic_port_hot[id].root, &exp, root, memory_order_acq_rel,
						    memory_order_acquire))
		return DOCA_SUCCESS;
	return DOCA_ERROR_ALREADY_EXIST;
}

void nic_port_account(uint16_t id, uint32_t shard, const struct nic_port_delta *d)
{
	struct port_counts *k = &ports[id].cnt[shard];
	if (d->rx_pkts) {
		nic_shard_add(&k->rx_pkts, d->rx_pkts, shard);
		nic_shard_add(&k->rx_bytes, d->rx_bytes, shard);
	}
	if (d->rx_errors)
		nic_shard_add(&k->rx_errors, d->rx_errors, shard);
	if (d->drops) {
		nic_shard_add(&k->drops, d->drops, shard);
		for (int r = 0; r < NIC_DROP_NR_REASONS; r++)
			if (d->drop[r])
				nic_shard_add(&k->drop[r], d->drop[r], shard);
	}
	if (d->host)
		nic_shard_add(&k->host, d->host, shard);
	if (d->kernel)
		nic_shard_add(&k->kernel, d->kernel, shard);
}

void nic_port_account_tx(uint32_t id, uint32_t shard, uint64_t pkts, uint64_t bytes)
{
	struct port_counts *k = &ports[id].cnt[shard];
	nic_shard_add(&k->tx_pkts, pkts, shard);
	nic_shard_add(&k->tx_bytes, bytes, shard);
}

/*
 * Forwarding to a port that is not started drops the frame on hardware without a word;
 * here the first such drop is logged, then at most one line a second (with the count
 * since), so a sustained flow does not flood the log. Off the packet path: a burst calls
 * it only when it had such drops.
 */
void nic_port_note_down_drops(uint16_t in_port, uint16_t to_port, uint32_t n)
{
	struct port_cold *c = &ports[in_port];
	struct timespec ts;
	atomic_fetch_add_explicit(&c->down_unlogged[to_port], n, memory_order_relaxed);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	uint64_t now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	uint64_t next = atomic_load_explicit(&c->down_next_ns[to_port], memory_order_relaxed);
	if (now < next || !atomic_compare_exchange_strong(&c->down_next_ns[to_port], &next, now + 1000000000ull))
		return;
	uint64_t k = atomic_exchange(&c->down_unlogged[to_port], 0);
	CORE_LOG_WARN("port %u: %llu frame(s) forwarded to port %u dropped: port %u is not started (drop reason %s; "
		      "at most one such line a second)",
		      in_port, (unsigned long long)k, to_port, to_port, nic_drop_reason_name(NIC_DROP_PORT_DOWN));
}

void nic_port_capture_slow(uint16_t id, enum nic_capture_queue q, const uint8_t *data, uint32_t len)
{
	struct port_cold *c = &ports[id];
	pthread_mutex_lock(&c->lock);
	struct capture_ring *r = &c->ring[q];
	if (r->depth) {
		if (r->count == r->depth) {
			atomic_fetch_add_explicit(&c->overflow, 1, memory_order_relaxed);
		} else {
			uint32_t slot = (r->head + r->count) % r->depth;
			memcpy(r->frames[slot], data, len);
			r->lens[slot] = len;
			r->count++;
		}
	}
	if (c->dumper[q]) {
		struct pcap_pkthdr h;
		gettimeofday(&h.ts, NULL);
		h.caplen = h.len = len;
		pcap_dump((u_char *)c->dumper[q], &h, data);
	}
	pthread_mutex_unlock(&c->lock);
}

doca_error_t nic_capture_set_depth(uint16_t id, enum nic_capture_queue q, uint32_t depth)
{
	if (id >= NIC_MAX_PORTS || (unsigned)q > NIC_CAPTURE_KERNEL)
		return DOCA_ERROR_INVALID_VALUE;
	if (!nic_port_started(id))
		return DOCA_ERROR_BAD_STATE;
	struct port_cold *c = &ports[id];
	/* Turn capture off first so no burst writes into the ring being replaced. */
	atomic_store_explicit(&nic_port_hot[id].capture_on[q], c->dumper[q] != NULL,
			      memory_order_release);
	pthread_mutex_lock(&c->lock);
	doca_error_t err = ring_resize(&c->ring[q], depth);
	update_capture_on(id);
	pthread_mutex_unlock(&c->lock);
	return err;
}

doca_error_t nic_capture_pop(uint16_t id, enum nic_capture_queue q, uint8_t *buf, uint32_t cap, uint32_t *len)
{
	if (id >= NIC_MAX_PORTS || (unsigned)q > NIC_CAPTURE_KERNEL || len == NULL ||
	    (buf == NULL && cap))
		return DOCA_ERROR_INVALID_VALUE;
	struct port_cold *c = &ports[id];
	pthread_mutex_lock(&c->lock);
	struct capture_ring *r = &c->ring[q];
	if (r->count == 0) {
		pthread_mutex_unlock(&c->lock);
		return DOCA_ERROR_NOT_FOUND;
	}
	uint32_t l = r->lens[r->head];
	memcpy(buf, r->frames[r->head], l < cap ? l : cap);
	*len = l;
	r->head = (r->head + 1) % r->depth;
	r->count--;
	pthread_mutex_unlock(&c->lock);
	return DOCA_SUCCESS;
}

uint32_t nic_capture_count(uint16_t id, enum nic_capture_queue q)
{
	if (id >= NIC_MAX_PORTS || (unsigned)q > NIC_CAPTURE_KERNEL)
		return 0;
	pthread_mutex_lock(&ports[id].lock);
	uint32_t n = ports[id].ring[q].count;
	pthread_mutex_unlock(&ports[id].lock);
	return n;
}

void nic_port_set_dumper(uint16_t id, enum nic_capture_queue q, void *dumper)
{
	pthread_mutex_lock(&ports[id].lock);
	ports[id].dumper[q] = dumper;
	update_capture_on(id);
	pthread_mutex_unlock(&ports[id].lock);
}

void nic_shutdown(void)
{
	for (uint16_t i = 0; i < NIC_MAX_PORTS; i++) {
		/* A capture that could not be written completely was logged by the stop. */
		doca_error_t err = nic_port_started(i) ? nic_port_stop(i) : DOCA_SUCCESS;
		(void)err;
	}
	nic_traffic_shutdown();
	nic_pipes_free_all();
}
