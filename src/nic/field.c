/*
 * field.c - bit ranges of header fields and of the meta words on a parsed frame: the
 * field programs behind DOCA Flow's action descriptors (COPY, ADD) and the match
 * conditions of CONTROL entries. The per-packet part (nic_prog_run, nic_cond_eval)
 * allocates nothing and takes no lock; pipes without programs or conditions never get
 * here. nic_pipe_add_prog is a control call (the pipe lock).
 */
#include <stdlib.h>
#include <string.h>

#include "dp_rewrite.h"
#include "nic_internal.h"

/* ------------------------------------------------------------------ bit access */

/* Byte and bit of bit k (0 = least significant) of field f's container c. */
static inline uint8_t *bit_loc(const struct nic_field *f, const uint8_t *c, uint32_t k, uint32_t *pos)
{
	if (f->hdr == NIC_FH_META) {
		/* Word k / 32, each a big-endian u32 as the key holds it. */
		uint32_t w = k / 32, b = k % 32;
		*pos = b % 8;
		return (uint8_t *)c + 4 * w + 3 - b / 8;
	}
	uint32_t b = f->shift + k;
	*pos = b % 8;
	return (uint8_t *)c + f->len - 1 - b / 8;
}

uint64_t nic_field_get(const struct nic_field *f, const uint8_t *c, uint32_t bit, uint32_t width)
{
	uint64_t v = 0;
	for (uint32_t i = width; i-- > 0;) {
		uint32_t pos;
		const uint8_t *p = bit_loc(f, c, bit + i, &pos);
		v = v << 1 | ((*p >> pos) & 1u);
	}
	return v;
}

void nic_field_set(const struct nic_field *f, uint8_t *c, uint32_t bit, uint32_t width, uint64_t v)
{
	for (uint32_t i = 0; i < width; i++) {
		uint32_t pos;
		uint8_t *p = bit_loc(f, c, bit + i, &pos);
		*p = (uint8_t)((*p & ~(1u << pos)) | (((v >> i) & 1u) << pos));
	}
}

/* ------------------------------------------------------------------ headers of a frame */

/* The header f lives in, if the frame has it whole; NULL otherwise. */
static uint8_t *hdr_base(const struct nic_field *f, uint8_t *frame, uint32_t len, const struct nic_hdr_off *off,
			 const struct nic_key *key, uint32_t *hlen)
{
	uint32_t at, need;
	switch (f->hdr) {
	case NIC_FH_ETH:
		at = 0, need = 14;
		break;
	case NIC_FH_VLAN:
		if (key->b[NIC_K_L2_META] == NIC_L2_META_NO_VLAN)
			return NULL;
		at = 14, need = 4;
		break;
	case NIC_FH_IP4:
		if (off->l3_type != NIC_L3_META_IPV4)
			return NULL;
		at = off->l3, need = 20;
		break;
	case NIC_FH_IP6:
		if (off->l3_type != NIC_L3_META_IPV6)
			return NULL;
		at = off->l3, need = 40;
		break;
	case NIC_FH_TCP:
		if (!off->l4 || off->l4_type != NIC_L4_META_TCP)
			return NULL;
		at = off->l4, need = 20;
		break;
	case NIC_FH_UDP:
		if (!off->l4 || off->l4_type != NIC_L4_META_UDP)
			return NULL;
		at = off->l4, need = 8;
		break;
	case NIC_FH_ESP:
		if (!off->l4 || off->l4_type != NIC_L4_META_ESP)
			return NULL;
		at = off->l4, need = 8;
		break;
	default:
		return NULL;
	}
	if (len < at + need)
		return NULL;
	*hlen = need;
	return frame + at;
}

/* ------------------------------------------------------------------ checksums */

/* Updates use the datapath's own RFC 1624 rule (nic_dp_csum_update, dp_rewrite.h). */
/* The L4 checksum of the frame that its header or pseudo-header feeds, or NULL. */
static uint8_t *l4_csum(uint8_t *frame, uint32_t len, const struct nic_hdr_off *off, bool *udp)
{
	*udp = off->l4_type == NIC_L4_META_UDP;
	if (!off->l4)
		return NULL;
	if (off->l4_type == NIC_L4_META_TCP && len >= off->l4 + 18u)
		return frame + off->l4 + 16;
	if (off->l4_type == NIC_L4_META_UDP && len >= off->l4 + 8u)
		return frame + off->l4 + 6;
	if (off->l4_type == NIC_L4_META_ICMP && off->l3_type == NIC_L3_META_IPV6 && len >= off->l4 + 4u)
		return frame + off->l4 + 2;
	return NULL;
}

/*
 * Write v into bits bit.. of header field f and fix the checksums that cover it. The
 * 16-bit words around the container are compared before and after, so any bit range
 * updates the sums correctly.
 */
static void hdr_write(const struct nic_field *f, uint8_t *frame, uint32_t len, const struct nic_hdr_off *off,
		      uint8_t *base, uint32_t bit, uint32_t width, uint64_t v)
{
	uint32_t lo = f->off & ~1u, hi = (f->off + f->len + 1u) & ~1u; /* even bounds in the header */
	uint8_t old[18];
	memcpy(old, base + lo, hi - lo);
	nic_field_set(f, base + f->off, bit, width, v);
	uint8_t *now = base + lo;
	if (memcmp(old, now, hi - lo) == 0)
		return;
	uint32_t nw = (hi - lo) / 2;
	if (f->hdr == NIC_FH_IP4)
		nic_dp_csum_update(base + 10, old, now, nw, false); /* no field written here overlaps the checksum */
	bool udp;
	uint8_t *l4c = NULL;
	if (f->hdr == NIC_FH_TCP || f->hdr == NIC_FH_UDP || (f->flags & NIC_FF_PSEUDO))
		l4c = l4_csum(frame, len, off, &udp);
	if (l4c)
		nic_dp_csum_update(l4c, old, now, nw, udp);
}

/* ------------------------------------------------------------------ programs */

struct loc {
	uint8_t *c; /* the field's container */
	uint8_t *base; /* its header (NULL for meta) */
};

static bool locate(const struct nic_field *f, uint8_t *frame, uint32_t len, const struct nic_hdr_off *off,
		   struct nic_key *key, struct loc *l)
{
	if (f->hdr == NIC_FH_META) {
		l->base = NULL;
		l->c = key->b + NIC_K_META;
		return true;
	}
	if (f->hdr == NIC_FH_KEY) {
		/* Read-only: flow never compiles a key field as a destination. */
		if (f->off + f->len > NIC_KEY_SIZE)
			return false;
		l->base = NULL;
		l->c = key->b + f->off;
		return true;
	}
	uint32_t hlen;
	l->base = hdr_base(f, frame, len, off, key, &hlen);
	if (l->base == NULL || f->off + f->len > hlen)
		return false;
	l->c = l->base + f->off;
	return true;
}

static void put(const struct nic_field *f, const struct loc *l, uint8_t *frame, uint32_t len,
		const struct nic_hdr_off *off, uint32_t bit, uint32_t width, uint64_t v, bool *hdr_changed)
{
	if (l->base == NULL) {
		nic_field_set(f, l->c, bit, width, v);
		return;
	}
	hdr_write(f, frame, len, off, l->base, bit, width, v);
	*hdr_changed = true;
}

static inline uint64_t width_mask(uint32_t w)
{
	return w >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << w) - 1;
}

void nic_prog_run(const struct nic_prog *pr, uint8_t *frame, uint32_t len, struct nic_hdr_off *off,
		  struct nic_key *key)
{
	bool hdr_changed = false;
	for (uint32_t i = 0; i < pr->n; i++) {
		const struct nic_fop *o = &pr->op[i];
		struct loc d, s;
		if (!locate(&o->dst, frame, len, off, key, &d))
			continue;
		if (o->type != NIC_FOP_ADD_CONST && !locate(&o->src, frame, len, off, key, &s))
			continue;
		if (o->type == NIC_FOP_COPY) {
			/* In chunks of 64 bits, low bits first (IPv6 addresses are 128). */
			for (uint32_t b = 0; b < o->width; b += 64) {
				uint32_t w = o->width - b < 64 ? o->width - b : 64;
				uint64_t v = nic_field_get(&o->src, s.c, o->src_bit + b, w);
				put(&o->dst, &d, frame, len, off, o->dst_bit + b, w, v, &hdr_changed);
			}
			continue;
		}
		uint64_t add = o->type == NIC_FOP_ADD ? nic_field_get(&o->src, s.c, o->src_bit, o->width) : o->konst;
		uint64_t v = nic_field_get(&o->dst, d.c, o->dst_bit, o->width);
		put(&o->dst, &d, frame, len, off, o->dst_bit, o->width, (v + add) & width_mask(o->width),
		    &hdr_changed);
	}
	if (!hdr_changed)
		return;
	/* The key follows the frame (a later pipe may match the new bytes); the meta words
	 * and the port are not in the frame and are kept. */
	uint8_t meta[NIC_KEY_SIZE - NIC_K_META];
	uint16_t port;
	memcpy(meta, key->b + NIC_K_META, sizeof(meta));
	memcpy(&port, key->b + NIC_K_PORT, sizeof(port));
	nic_parse_general(frame, len, port, key, off);
	memcpy(key->b + NIC_K_META, meta, sizeof(meta));
}

/* ------------------------------------------------------------------ conditions */

void nic_field_note(const struct nic_field *f)
{
	if (f->hdr != NIC_FH_KEY || f->off + f->len > NIC_KEY_SIZE)
		return;
	struct nic_key m;
	memset(&m, 0, sizeof(m));
	memset(m.b + f->off, 0xff, f->len);
	nic_parse_extras_note(&m);
}

bool nic_cond_eval(const struct nic_cond *c, const uint8_t *frame, uint32_t len, const struct nic_hdr_off *off,
		   const struct nic_key *key)
{
	struct loc a, b;
	/* locate() takes writable pointers for the programs; nothing is written here. */
	uint8_t *fr = (uint8_t *)(uintptr_t)frame;
	struct nic_key *k = (struct nic_key *)(uintptr_t)key;
	if (!locate(&c->a, fr, len, off, k, &a))
		return false;
	uint64_t x = nic_field_get(&c->a, a.c, c->a_bit, c->width), y = c->konst;
	if (!c->b_const) {
		if (!locate(&c->b, fr, len, off, k, &b))
			return false;
		y = nic_field_get(&c->b, b.c, c->b_bit, c->width);
	}
	switch (c->op) {
	case NIC_CMP_EQ:
		return x == y;
	case NIC_CMP_NE:
		return x != y;
	case NIC_CMP_LT:
		return x < y;
	case NIC_CMP_LE:
		return x <= y;
	case NIC_CMP_GT:
		return x > y;
	case NIC_CMP_GE:
		return x >= y;
	default:
		return false;
	}
}

/* ------------------------------------------------------------------ pipe programs */

doca_error_t nic_pipe_add_prog(struct nic_pipe *p, struct nic_prog *pr, uint8_t *index)
{
	size_t sz = sizeof(*pr) + pr->n * sizeof(pr->op[0]);
	doca_error_t err = DOCA_ERROR_FULL;
	pthread_rwlock_wrlock(&p->lock);
	for (int i = 0; i < NIC_MAX_PROGS; i++) {
		struct nic_prog *have = p->progs[i];
		if (have && have->n == pr->n && memcmp(have, pr, sz) == 0) {
			free(pr);
			*index = (uint8_t)i;
			err = DOCA_SUCCESS;
			break;
		}
		if (have == NULL) {
			/* Release: an entry naming it is published after this (its own release). */
			__atomic_store_n(&p->progs[i], pr, __ATOMIC_RELEASE);
			*index = (uint8_t)i;
			err = DOCA_SUCCESS;
			break;
		}
	}
	pthread_rwlock_unlock(&p->lock);
	return err;
}
