/*
 * traffic.c - traffic I/O of the NIC: FLOWDPA_PORTn_RX sources (a pcap file, or the
 * deterministic generator) played by one NIC worker thread per port, and the
 * FLOWDPA_PORTn_TX pcap sink. A source starts when the flow layer kicks the port (its
 * root pipe exists and entries_process returned with nothing pending) or 1 s after the
 * root pipe appeared, whichever is first (docs/configuration.md, FLOWDPA_PORTn_RX).
 * A source that does not play out (its port never started, stopped first, or the
 * program ended first) says so with one line: zero traffic is never silent.
 */
#include <errno.h>
#include <math.h>
#include <pcap/pcap.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <core/core.h>

#include "nic_internal.h"

DOCA_LOG_REGISTER(NIC::TRAFFIC);

#define GEN_FRAME_LEN 64
#define START_DELAY_NS 1000000000ull

struct source {
	bool attached;
	bool thread_started;
	uint16_t port;
	pthread_t thread;
	struct core_traffic_src cfg;
	/* pcap source: all frames, loaded at attach so a bad file fails the port start. */
	uint8_t *blob;
	uint32_t *lens;
	uint64_t *offs;
	uint64_t nframes;
	struct nic_gen *gen;
	/* Start rule, under lock. */
	bool stop, kicked, root_seen, done;
	uint64_t root_ns;
	pcap_t *sink_dead;
	pcap_t *ksink_dead; /* FLOWDPA_PORTn_KERNEL's */
	/* Frames played by this attach, and to play (every loop): what a stop reports. */
	_Atomic uint64_t played;
	uint64_t total;
	/* Attached since the last nic_traffic_shutdown (under lock). */
	bool attached_once;
	/* Its port's start was tried since then: a start that failed said why itself. */
	bool start_tried;
	/* Told when the source starts on the 1 s fallback (nic_traffic_attach). */
	nic_traffic_unprocessed_fn unprocessed;
	void *unprocessed_ctx;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static struct source sources[NIC_MAX_PORTS];
static bool session; /* a port was started since the last nic_traffic_shutdown */
/* A paced source's sleep, on CLOCK_MONOTONIC (pace_cond_init); a stop broadcasts it. */
static pthread_cond_t pace_cond;
static pthread_once_t pace_once = PTHREAD_ONCE_INIT;

static void pace_cond_init(void)
{
	pthread_condattr_t a;
	pthread_condattr_init(&a);
	pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	pthread_cond_init(&pace_cond, &a);
	pthread_condattr_destroy(&a);
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ------------------------------------------------------------------ generator */

struct nic_gen {
	uint32_t flows;
	uint64_t state;
	double *cdf; /* NULL for uniform */
};

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

doca_error_t nic_gen_create(uint32_t flows, double zipf, uint64_t seed, struct nic_gen **out)
{
	if (out == NULL || flows == 0 || zipf < 0)
		return DOCA_ERROR_INVALID_VALUE;
	struct nic_gen *g = core_calloc(1, sizeof(*g));
	if (g == NULL)
		return DOCA_ERROR_NO_MEMORY;
	g->flows = flows;
	g->state = seed;
	if (zipf > 0) {
		g->cdf = core_malloc((size_t)flows * sizeof(double));
		if (g->cdf == NULL) {
			free(g);
			return DOCA_ERROR_NO_MEMORY;
		}
		double sum = 0;
		for (uint32_t i = 0; i < flows; i++)
			g->cdf[i] = (sum += 1.0 / pow((double)(i + 1), zipf));
		for (uint32_t i = 0; i < flows; i++)
			g->cdf[i] /= sum;
	}
	*out = g;
	return DOCA_SUCCESS;
}

uint32_t nic_gen_next(struct nic_gen *g)
{
	uint64_t r = splitmix(&g->state);
	if (g->cdf == NULL)
		return (uint32_t)(r % g->flows);
	double u = (double)(r >> 11) * (1.0 / 9007199254740992.0);
	uint32_t lo = 0, hi = g->flows - 1;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (g->cdf[mid] < u)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void nic_gen_destroy(struct nic_gen *g)
{
	if (g == NULL)
		return;
	free(g->cdf);
	free(g);
}

static uint32_t csum_add(uint32_t s, const uint8_t *p, uint32_t n)
{
	for (uint32_t i = 0; i + 1 < n; i += 2)
		s += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (n & 1)
		s += (uint32_t)p[n - 1] << 8;
	return s;
}

static uint16_t csum_fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

void nic_gen_frame(uint32_t flow, uint8_t f[GEN_FRAME_LEN])
{
	static const uint8_t eth[14] = {0x02, 0, 0, 0, 0, 0x02, 0x02, 0, 0, 0, 0, 0x01, 0x08, 0x00};
	uint32_t dst = 0x0a000000u + flow; /* 10.0.0.0 + flow */
	uint16_t sport = (uint16_t)(1024 + flow % 60000);

	memset(f, 0, GEN_FRAME_LEN);
	memcpy(f, eth, 14);
	uint8_t *ip = f + 14;
	ip[0] = 0x45;
	ip[3] = GEN_FRAME_LEN - 14; /* total length 50 */
	ip[8] = 64;
	ip[9] = 17;
	ip[12] = 192, ip[13] = 168, ip[14] = 0, ip[15] = 1;
	ip[16] = (uint8_t)(dst >> 24), ip[17] = (uint8_t)(dst >> 16), ip[18] = (uint8_t)(dst >> 8),
	ip[19] = (uint8_t)dst;
	uint16_t c = csum_fold(csum_add(0, ip, 20));
	ip[10] = (uint8_t)(c >> 8), ip[11] = (uint8_t)c;
	uint8_t *udp = ip + 20;
	udp[0] = (uint8_t)(sport >> 8), udp[1] = (uint8_t)sport;
	udp[2] = 0x13, udp[3] = 0x88; /* 5000 */
	udp[5] = GEN_FRAME_LEN - 34;  /* length 30 */
	udp[8] = (uint8_t)(flow >> 24), udp[9] = (uint8_t)(flow >> 16), udp[10] = (uint8_t)(flow >> 8),
	udp[11] = (uint8_t)flow;
	uint8_t pseudo[12] = {ip[12], ip[13], ip[14], ip[15], ip[16], ip[17], ip[18], ip[19], 0, 17, 0, udp[5]};
	uint32_t s = csum_add(0, pseudo, 12);
	s = csum_add(s, udp, GEN_FRAME_LEN - 34);
	c = csum_fold(s);
	if (c == 0)
		c = 0xffff;
	udp[6] = (uint8_t)(c >> 8), udp[7] = (uint8_t)c;
}

/* ------------------------------------------------------------------ sources */

static doca_error_t load_pcap(struct source *s)
{
	char err[PCAP_ERRBUF_SIZE];
	pcap_t *pc = pcap_open_offline(s->cfg.path, err);
	if (pc == NULL) {
		CORE_LOG_ERR("FLOWDPA_PORT%u_RX: cannot open pcap '%s': %s", s->port, s->cfg.path, err);
		return DOCA_ERROR_IO_FAILED;
	}
	struct pcap_pkthdr *h;
	const u_char *data;
	uint64_t cap = 0, used = 0, bytes_cap = 0, skipped = 0;
	int rc;
	doca_error_t status = DOCA_ERROR_IO_FAILED;
	/* Frames are parsed as Ethernet: a RAW or Linux-cooked capture would be garbage. */
	if (pcap_datalink(pc) != DLT_EN10MB) {
		CORE_LOG_ERR("FLOWDPA_PORT%u_RX: '%s' has link type %s; only Ethernet (EN10MB) captures can be played",
			     s->port, s->cfg.path, pcap_datalink_val_to_name(pcap_datalink(pc)));
		goto out;
	}
	while ((rc = pcap_next_ex(pc, &h, &data)) == 1) {
		if (h->caplen > NIC_MAX_FRAME || h->caplen < 14) {
			skipped++;
			continue;
		}
		if (s->nframes == cap) {
			cap = cap ? cap * 2 : 256;
			uint32_t *l = core_realloc(s->lens, cap * sizeof(*l));
			uint64_t *o = l ? core_realloc(s->offs, cap * sizeof(*o)) : NULL;
			if (l)
				s->lens = l;
			if (o)
				s->offs = o;
			if (l == NULL || o == NULL) {
				status = DOCA_ERROR_NO_MEMORY;
				goto out;
			}
		}
		if (used + h->caplen > bytes_cap) {
			bytes_cap = (bytes_cap + h->caplen) * 2;
			uint8_t *b = core_realloc(s->blob, bytes_cap);
			if (b == NULL) {
				status = DOCA_ERROR_NO_MEMORY;
				goto out;
			}
			s->blob = b;
		}
		memcpy(s->blob + used, data, h->caplen);
		s->offs[s->nframes] = used;
		s->lens[s->nframes] = h->caplen;
		used += h->caplen;
		s->nframes++;
	}
	if (rc == -1) {
		/* A truncated or corrupt file: playing part of it would mislead the test. */
		CORE_LOG_ERR("FLOWDPA_PORT%u_RX: '%s': read error after %llu frames: %s", s->port, s->cfg.path,
			     (unsigned long long)s->nframes, pcap_geterr(pc));
		goto out;
	}
	if (skipped)
		CORE_LOG_WARN("FLOWDPA_PORT%u_RX: '%s': %llu frames skipped (shorter than 14 or longer than %u bytes)",
			      s->port, s->cfg.path, (unsigned long long)skipped, NIC_MAX_FRAME);
	status = DOCA_SUCCESS;
out:
	if (status == DOCA_ERROR_NO_MEMORY)
		CORE_LOG_ERR("FLOWDPA_PORT%u_RX: '%s': out of memory after %llu frames", s->port, s->cfg.path,
			     (unsigned long long)s->nframes);
	/* What was read stays in s either way: the caller frees it (source_free) on failure. */
	pcap_close(pc);
	return status;
}

/* True once the source may play, or must give up (stop): the caller tells them apart. */
static bool may_start(const struct source *s)
{
	if (s->stop)
		return true;
	if (nic_port_root(s->port) == NULL)
		return false;
	return s->kicked || (s->root_seen && now_ns() >= s->root_ns + START_DELAY_NS);
}

/* Frames in a pcap file as load_pcap would keep them; UINT64_MAX when unreadable. */
static uint64_t pcap_frames(const char *path)
{
	char err[PCAP_ERRBUF_SIZE];
	pcap_t *pc = pcap_open_offline(path, err);
	struct pcap_pkthdr *h;
	const u_char *data;
	uint64_t n = 0;
	if (pc == NULL)
		return UINT64_MAX;
	while (pcap_next_ex(pc, &h, &data) == 1)
		n += h->caplen >= 14 && h->caplen <= NIC_MAX_FRAME;
	pcap_close(pc);
	return n;
}

/* "port n: source in.pcap played 3/14 frames (why)": a source that did not play out. */
static void log_unplayed(uint16_t port, const struct core_traffic_src *cfg, uint64_t played, uint64_t total,
			 const char *why)
{
	char of[32] = "";
	if (total != UINT64_MAX)
		snprintf(of, sizeof(of), "/%llu", (unsigned long long)total);
	CORE_LOG_WARN("port %u: source %s played %llu%s frames (%s)", port,
		      cfg->kind == CORE_TRAFFIC_PCAP ? cfg->path : "gen", (unsigned long long)played, of, why);
}

/* Frames due elapsed_ns after the start at rate_pps: the first at once. 128-bit: a long
 * run at a high rate overflows 64 bits. */
static uint64_t frames_due(uint64_t elapsed_ns, uint64_t rate_pps)
{
	return (uint64_t)((unsigned __int128)elapsed_ns * rate_pps / 1000000000u) + 1;
}

/* Sleep until due_ns (CLOCK_MONOTONIC) unless the source is stopped first: the stop
 * wakes the wait at once. True when stopped. */
static bool pace_wait(struct source *s, uint64_t due_ns)
{
	struct timespec ts = {(time_t)(due_ns / 1000000000ull), (long)(due_ns % 1000000000ull)};
	pthread_mutex_lock(&lock);
	while (!s->stop && now_ns() < due_ns)
		if (pthread_cond_timedwait(&pace_cond, &lock, &ts) == ETIMEDOUT)
			break;
	bool stop = s->stop;
	pthread_mutex_unlock(&lock);
	return stop;
}

static void *source_main(void *arg)
{
	struct source *s = arg;
	static _Thread_local uint8_t frames[NIC_BURST_MAX][NIC_MAX_FRAME];
	struct nic_buf bufs[NIC_BURST_MAX];
	char trace_name[48], os_name[16];

	snprintf(os_name, sizeof(os_name), "nic:rx/%u", s->port);
	core_thread_name(0, NULL, os_name);
	pthread_mutex_lock(&lock);
	while (!may_start(s)) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 10 * 1000000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&cond, &lock, &ts);
	}
	/* A port stopped before its start rule fired gets no traffic at all. */
	bool stopped_early = s->stop;
	bool fallback = !s->stop && !s->kicked;
	pthread_mutex_unlock(&lock);
	if (fallback && s->unprocessed)
		s->unprocessed(s->unprocessed_ctx, s->port);
	/* Its trace row is set once the port has started, before a root pipe or a stop that
	 * ended the wait. */
	snprintf(trace_name, sizeof(trace_name), "NIC worker (port %u rx)", s->port);
	core_trace_thread_name(nic_port_hot[s->port].trace_pid, trace_name);

	uint64_t per_loop = s->cfg.kind == CORE_TRAFFIC_PCAP ? s->nframes : s->cfg.pkts;
	uint32_t loops = s->cfg.loop ? s->cfg.loop : 1;
	uint64_t t0 = now_ns(), sent = 0;
	bool stop = stopped_early;
	uint32_t played = 0;

	if (!stopped_early)
		CORE_LOG_TRC("FLOWDPA_PORT%u_RX: traffic source playing", s->port);
	for (uint32_t l = 0; l < loops && !stop; l++) {
		for (uint64_t i = 0; i < per_loop && !stop;) {
			/* Paced: frame k is due at t0 + k / rate, and a burst holds only the frames
			 * due by now, so the rate holds within a burst too. */
			uint64_t room = NIC_BURST_MAX;
			if (s->cfg.rate_pps) {
				uint64_t due = frames_due(now_ns() - t0, s->cfg.rate_pps);
				room = due > sent ? due - sent : 0;
				if (room == 0) {
					stop = pace_wait(s, t0 + (uint64_t)((unsigned __int128)sent * 1000000000u /
									      s->cfg.rate_pps));
					continue;
				}
			}
			uint32_t n = 0;
			for (; n < room && n < NIC_BURST_MAX && i < per_loop; n++, i++) {
				bufs[n].data = frames[n];
				if (s->cfg.kind == CORE_TRAFFIC_PCAP) {
					bufs[n].len = s->lens[i];
					memcpy(frames[n], s->blob + s->offs[i], s->lens[i]);
				} else {
					bufs[n].len = GEN_FRAME_LEN;
					nic_gen_frame(nic_gen_next(s->gen), frames[n]);
				}
			}
			nic_port_rx_burst(s->port, bufs, n);
			sent += n;
			atomic_store_explicit(&s->played, sent, memory_order_relaxed);
			pthread_mutex_lock(&lock);
			stop = s->stop;
			pthread_mutex_unlock(&lock);
		}
		played += !stop;
	}
	CORE_LOG_TRC("FLOWDPA_PORT%u_RX: traffic source ended: %llu frames sent in %u loop(s)%s", s->port,
		     (unsigned long long)sent, played,
		     stopped_early ? " (the port stopped before it started)" : stop ? " (port stopped)" : "");
	if (core_trace_enabled())
		nic_trace_port_counters(s->port, true);
	pthread_mutex_lock(&lock);
	s->done = true;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	return NULL;
}

static void source_free(struct source *s)
{
	free(s->blob);
	free(s->lens);
	free(s->offs);
	nic_gen_destroy(s->gen);
	s->blob = NULL;
	s->lens = NULL;
	s->offs = NULL;
	s->gen = NULL;
	s->nframes = 0;
}

doca_error_t nic_traffic_attach(uint16_t port, nic_traffic_unprocessed_fn unprocessed, void *ctx)
{
	if (port >= NIC_MAX_PORTS)
		return DOCA_ERROR_INVALID_VALUE;
	const struct core_config *cfg = core_config_get();
	if (cfg == NULL)
		return core_config_status();
	struct source *s = &sources[port];
	doca_error_t err = DOCA_SUCCESS;
	pcap_dumper_t *tx_dumper = NULL;
	pthread_mutex_lock(&lock);
	session = true; /* a port started: the never-started ones are reported at shutdown */
	pthread_mutex_unlock(&lock);

	/* TX, then the kernel target's sink; a failure leaves neither open. */
	for (int k = 0; k < 2; k++) {
		const struct core_traffic_sink *sink = k == 0 ? &cfg->port_tx[port] : &cfg->port_kernel[port];
		if (sink->kind != CORE_TRAFFIC_PCAP)
			continue;
		pcap_t *dead = pcap_open_dead(DLT_EN10MB, 65535);
		pcap_dumper_t *d = dead ? pcap_dump_open(dead, sink->path) : NULL;
		if (d == NULL) {
			CORE_LOG_ERR("FLOWDPA_PORT%u_%s: cannot write pcap '%s': %s", port, k == 0 ? "TX" : "KERNEL",
				     sink->path, dead ? pcap_geterr(dead) : "out of memory");
			if (dead)
				pcap_close(dead);
			if (k == 1 && s->sink_dead) {
				nic_port_set_dumper(port, NIC_CAPTURE_TX, NULL);
				pcap_dump_close(tx_dumper);
				pcap_close(s->sink_dead);
				s->sink_dead = NULL;
			}
			return DOCA_ERROR_IO_FAILED;
		}
		if (k == 0) {
			s->sink_dead = dead;
			tx_dumper = d;
		} else {
			s->ksink_dead = dead;
		}
		nic_port_set_dumper(port, k == 0 ? NIC_CAPTURE_TX : NIC_CAPTURE_KERNEL, d);
	}

	const struct core_traffic_src *rx = &cfg->port_rx[port];
	if (rx->kind == CORE_TRAFFIC_NONE)
		return DOCA_SUCCESS;
	memset(&s->cfg, 0, sizeof(s->cfg));
	s->cfg = *rx;
	s->port = port;
	if (rx->kind == CORE_TRAFFIC_PCAP) {
		err = load_pcap(s); /* says why it failed */
	} else {
		err = nic_gen_create(rx->flows ? rx->flows : 1, rx->zipf, rx->seed, &s->gen);
		if (err != DOCA_SUCCESS) /* the configuration was checked: memory */
			CORE_LOG_ERR("FLOWDPA_PORT%u_RX: cannot set up the generator: %s", port,
				     doca_error_get_descr(err));
	}
	if (err != DOCA_SUCCESS)
		goto fail;
	s->unprocessed = unprocessed;
	s->unprocessed_ctx = ctx;
	atomic_store_explicit(&s->played, 0, memory_order_relaxed);
	s->total = (rx->kind == CORE_TRAFFIC_PCAP ? s->nframes : rx->pkts) * (rx->loop ? rx->loop : 1);
	pthread_once(&pace_once, pace_cond_init);
	pthread_mutex_lock(&lock);
	s->attached_once = true;
	s->stop = s->kicked = s->done = false;
	s->root_seen = nic_port_root(port) != NULL;
	s->root_ns = now_ns();
	s->attached = true;
	pthread_mutex_unlock(&lock);
	if (pthread_create(&s->thread, NULL, source_main, s) != 0) {
		CORE_LOG_ERR("FLOWDPA_PORT%u_RX: cannot start the NIC worker thread", port);
		s->attached = false;
		err = DOCA_ERROR_OPERATING_SYSTEM;
		goto fail;
	}
	s->thread_started = true;
	CORE_LOG_TRC("FLOWDPA_PORT%u_RX: traffic source started: %s, %llu frames x %u loop(s)%s; plays once the port "
		     "has a root pipe",
		     port, rx->kind == CORE_TRAFFIC_PCAP ? rx->path : "generator",
		     (unsigned long long)(rx->kind == CORE_TRAFFIC_PCAP ? s->nframes : rx->pkts), rx->loop ? rx->loop : 1,
		     rx->rate_pps ? " (paced)" : "");
	return DOCA_SUCCESS;

fail:
	/* The RX source, and the TX sink's pcap handle (its dumper stays with the port). */
	source_free(s);
	nic_traffic_detach(port);
	return err;
}

void nic_traffic_kick(uint16_t port)
{
	if (port >= NIC_MAX_PORTS)
		return;
	pthread_mutex_lock(&lock);
	/* An idle entries_process before the root pipe exists must not count: the rule is
	 * "root pipe present and its entries processed". A switch manager's entries are
	 * its representors' too, so their sources start with it. */
	for (uint16_t i = 0; i < NIC_MAX_PORTS; i++) {
		struct source *s = &sources[i];
		int32_t mgr = atomic_load_explicit(&nic_port_hot[i].manager, memory_order_relaxed);

		if ((i != port && mgr != port) || !s->attached || s->kicked || nic_port_root(i) == NULL)
			continue;
		s->kicked = true;
		pthread_cond_broadcast(&cond);
	}
	pthread_mutex_unlock(&lock);
}

void nic_traffic_root_set(uint16_t port)
{
	pthread_mutex_lock(&lock);
	struct source *s = &sources[port];
	if (s->attached && !s->root_seen) {
		s->root_seen = true;
		s->root_ns = now_ns();
		pthread_cond_broadcast(&cond);
	}
	pthread_mutex_unlock(&lock);
}

doca_error_t nic_traffic_wait(uint32_t timeout_ms, uint16_t *port)
{
	uint64_t deadline = now_ns() + (uint64_t)timeout_ms * 1000000ull;
	const struct core_config *cfg = core_config_get();
	pthread_mutex_lock(&lock);
	/* A configured source whose port has not started since the last shutdown cannot play:
	 * waiting for it would end in silence (or a time-out). */
	for (uint16_t i = 0; cfg && i < NIC_MAX_PORTS; i++) {
		if (cfg->port_rx[i].kind != CORE_TRAFFIC_NONE && !sources[i].attached_once) {
			pthread_mutex_unlock(&lock);
			*port = i;
			return DOCA_ERROR_BAD_STATE;
		}
	}
	for (;;) {
		bool busy = false;
		for (uint16_t i = 0; i < NIC_MAX_PORTS && !busy; i++)
			if (sources[i].attached && !sources[i].done) {
				busy = true;
				*port = i;
			}
		if (!busy)
			break;
		if (timeout_ms && now_ns() >= deadline) {
			pthread_mutex_unlock(&lock);
			return DOCA_ERROR_TIME_OUT;
		}
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 5 * 1000000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&cond, &lock, &ts);
	}
	pthread_mutex_unlock(&lock);
	return DOCA_SUCCESS;
}

void nic_traffic_detach(uint16_t port)
{
	struct source *s = &sources[port];
	pthread_mutex_lock(&lock);
	bool had_source = s->attached, had_root = s->root_seen || nic_port_root(port) != NULL;
	s->stop = true;
	pthread_cond_broadcast(&cond);
	if (s->thread_started)
		pthread_cond_broadcast(&pace_cond);
	bool join = s->thread_started;
	pthread_mutex_unlock(&lock);
	if (join)
		pthread_join(s->thread, NULL);
	pthread_mutex_lock(&lock);
	s->thread_started = false;
	s->attached = false;
	pthread_mutex_unlock(&lock);
	uint64_t played = atomic_load_explicit(&s->played, memory_order_relaxed);
	if (had_source && played < s->total)
		log_unplayed(port, &s->cfg, played, s->total,
			     had_root ? "port stopped first" : "port stopped first; it had no root pipe");
	source_free(s);
	/* The TX dumper stays with the port: nic_port_stop flushes, checks and closes it
	 * once no datapath thread can write to it any more. */
	if (s->sink_dead) {
		pcap_close(s->sink_dead);
		s->sink_dead = NULL;
	}
	if (s->ksink_dead) {
		pcap_close(s->ksink_dead);
		s->ksink_dead = NULL;
	}
}

/* The sources configured for ports that were never started in this session. */
static void report_never_started(void)
{
	const struct core_config *cfg = core_config_get();
	for (uint16_t i = 0; cfg && session && i < NIC_MAX_PORTS; i++) {
		const struct core_traffic_src *rx = &cfg->port_rx[i];
		if (rx->kind == CORE_TRAFFIC_NONE || sources[i].attached_once || sources[i].start_tried)
			continue;
		uint64_t per_loop = rx->kind == CORE_TRAFFIC_PCAP ? pcap_frames(rx->path) : rx->pkts;
		uint64_t total = per_loop == UINT64_MAX ? UINT64_MAX : per_loop * (rx->loop ? rx->loop : 1);
		log_unplayed(i, rx, 0, total, "port never started");
	}
}

void nic_traffic_shutdown(void)
{
	report_never_started();
	pthread_mutex_lock(&lock);
	session = false;
	for (int i = 0; i < NIC_MAX_PORTS; i++)
		sources[i].attached_once = sources[i].start_tried = false;
	pthread_mutex_unlock(&lock);
}

void nic_traffic_start_tried(uint16_t port_id)
{
	pthread_mutex_lock(&lock);
	sources[port_id].start_tried = true;
	pthread_mutex_unlock(&lock);
}

/*
 * A program that exits with sources still playing, or without doca_flow_destroy while a
 * configured port never started: the last word on them. Reads only what the sources
 * publish atomically; the worker threads end with the process.
 */
__attribute__((destructor)) static void traffic_at_exit(void)
{
	for (uint16_t i = 0; session && i < NIC_MAX_PORTS; i++) {
		struct source *s = &sources[i];
		uint64_t played = atomic_load_explicit(&s->played, memory_order_relaxed);
		if (s->attached && played < s->total)
			log_unplayed(i, &s->cfg, played, s->total, "program ended first");
	}
	report_never_started();
}
