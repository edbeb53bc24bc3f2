"""pkt.py - just enough of scapy's packet expressions (Ether()/IP(...)/TCP(...)/Raw(...))
to turn the test packets of DOCA's sample descriptions (<sample>_sample.yaml) into bytes,
with scapy's field defaults, automatic lengths, protocol numbers and checksums, so that
the frames sent and the frames expected are built the same way. Layers: Ether, Dot1Q,
IP, IPv6, TCP, UDP, GRE, VXLAN, Raw; anything else raises NotImplementedError.
"""
import ipaddress
import struct

TCP_FLAGS = "FSRPAUEC"


def _csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF


def _mac(s):
    return bytes.fromhex(s.replace(":", ""))


class Layer:
    defaults = {}

    def __init__(self, **kw):
        unknown = set(kw) - set(self.defaults)
        if unknown:
            raise NotImplementedError("%s field(s) %s" % (type(self).__name__, ", ".join(sorted(unknown))))
        self.f = dict(self.defaults)
        self.f.update(kw)
        self.given = set(kw)
        self.under = None
        self.payload = None

    def __truediv__(self, other):
        last = self
        while last.payload is not None:
            last = last.payload
        last.payload = other
        other.under = last
        return self

    def build(self):
        tail = self.payload.build() if self.payload is not None else b""
        return self.encode(tail)

    def next_is(self, cls):
        return isinstance(self.payload, cls)


class Raw(Layer):
    defaults = {"load": b""}

    def encode(self, tail):
        load = self.f["load"]
        return (load.encode() if isinstance(load, str) else bytes(load)) + tail


def _ethertype(nxt):
    return {IP: 0x0800, IPv6: 0x86DD, Dot1Q: 0x8100}.get(type(nxt), 0x9000)


class Ether(Layer):
    defaults = {"dst": "ff:ff:ff:ff:ff:ff", "src": "00:00:00:00:00:00", "type": None}

    def encode(self, tail):
        t = self.f["type"] if self.f["type"] is not None else _ethertype(self.payload)
        return _mac(self.f["dst"]) + _mac(self.f["src"]) + struct.pack("!H", t) + tail


class Dot1Q(Layer):
    defaults = {"prio": 0, "id": 0, "dei": 0, "vlan": 1, "type": None}

    def encode(self, tail):
        t = self.f["type"] if self.f["type"] is not None else _ethertype(self.payload)
        tci = (self.f["prio"] << 13) | ((self.f["id"] or self.f["dei"]) << 12) | self.f["vlan"]
        return struct.pack("!HH", tci, t) + tail


def _proto(nxt):
    return {TCP: 6, UDP: 17, GRE: 47, IP: 4, IPv6: 41}.get(type(nxt), 0 if nxt is not None else 0)


class IP(Layer):
    defaults = {"version": 4, "ihl": None, "tos": 0, "len": None, "id": 1, "flags": 0, "frag": 0, "ttl": 64,
                "proto": None, "chksum": None, "src": "127.0.0.1", "dst": "127.0.0.1"}

    def addr(self):
        return ipaddress.IPv4Address(self.f["src"]).packed, ipaddress.IPv4Address(self.f["dst"]).packed

    def encode(self, tail):
        f = self.f
        flags = f["flags"]
        if isinstance(flags, str):
            flags = sum({"MF": 1, "DF": 2, "evil": 4}[x] for x in flags.replace("+", " ").split())
        proto = f["proto"] if f["proto"] is not None else (_proto(self.payload) if self.payload is not None and
                                                            not isinstance(self.payload, Raw) else 0)
        length = f["len"] if f["len"] is not None else 20 + len(tail)
        src, dst = self.addr()
        hdr = struct.pack("!BBHHHBBH4s4s", (f["version"] << 4) | (f["ihl"] or 5), f["tos"], length, f["id"],
                          (flags << 13) | f["frag"], f["ttl"], proto, 0, src, dst)
        c = f["chksum"] if f["chksum"] is not None else _csum(hdr)
        return hdr[:10] + struct.pack("!H", c) + hdr[12:] + tail


class IPv6(Layer):
    defaults = {"version": 6, "tc": 0, "fl": 0, "plen": None, "nh": None, "hlim": 64, "src": "::1", "dst": "::1"}

    def addr(self):
        return ipaddress.IPv6Address(self.f["src"]).packed, ipaddress.IPv6Address(self.f["dst"]).packed

    def encode(self, tail):
        f = self.f
        nh = f["nh"] if f["nh"] is not None else (_proto(self.payload) if self.payload is not None and
                                                  not isinstance(self.payload, Raw) else 59)
        src, dst = self.addr()
        return struct.pack("!IHBB", (6 << 28) | (f["tc"] << 20) | f["fl"],
                           f["plen"] if f["plen"] is not None else len(tail), nh, f["hlim"]) + src + dst + tail


def _l4_csum(layer, proto, seg):
    ip = layer.under
    if isinstance(ip, IP):
        s, d = ip.addr()
        pseudo = s + d + struct.pack("!BBH", 0, proto, len(seg))
    elif isinstance(ip, IPv6):
        s, d = ip.addr()
        pseudo = s + d + struct.pack("!IxxxB", len(seg), proto)
    else:
        return 0
    c = _csum(pseudo + seg)
    return c if c or proto == 6 else 0xFFFF


class TCP(Layer):
    defaults = {"sport": 20, "dport": 80, "seq": 0, "ack": 0, "dataofs": None, "reserved": 0, "flags": "S",
                "window": 8192, "chksum": None, "urgptr": 0, "options": []}

    def encode(self, tail):
        f = self.f
        if f["options"]:
            raise NotImplementedError("TCP options")
        flags = f["flags"]
        if isinstance(flags, str):
            flags = sum(1 << TCP_FLAGS.index(x) for x in flags)
        hdr = struct.pack("!HHIIBBHHH", f["sport"], f["dport"], f["seq"], f["ack"],
                          ((f["dataofs"] or 5) << 4) | f["reserved"], flags, f["window"], 0, f["urgptr"])
        c = f["chksum"] if f["chksum"] is not None else _l4_csum(self, 6, hdr + tail)
        return hdr[:16] + struct.pack("!H", c) + hdr[18:] + tail


class UDP(Layer):
    defaults = {"sport": 53, "dport": 53, "len": None, "chksum": None}

    def encode(self, tail):
        f = self.f
        dport = f["dport"]
        if "dport" not in self.given and isinstance(self.payload, VXLAN):
            dport = 4789
        hdr = struct.pack("!HHHH", f["sport"], dport, f["len"] if f["len"] is not None else 8 + len(tail), 0)
        c = f["chksum"] if f["chksum"] is not None else _l4_csum(self, 17, hdr + tail)
        return hdr[:6] + struct.pack("!H", c) + tail


class GRE(Layer):
    defaults = {"chksum_present": 0, "routing_present": 0, "key_present": 0, "seqnum_present": 0,
                "strict_route_source": 0, "recursion_control": 0, "flags": 0, "version": 0, "proto": None,
                "key": None, "chksum": None, "seqence_number": None}

    def encode(self, tail):
        f = self.f
        if f["chksum_present"] or f["routing_present"] or f["seqnum_present"]:
            raise NotImplementedError("GRE checksum/routing/sequence")
        key = f["key_present"] or f["key"] is not None
        proto = f["proto"] if f["proto"] is not None else {IP: 0x0800, IPv6: 0x86DD, Ether: 0x6558}.get(
            type(self.payload), 0)
        hdr = struct.pack("!HH", (0x2000 if key else 0) | (f["flags"] << 3) | f["version"], proto)
        if key:
            hdr += struct.pack("!I", f["key"] or 0)
        return hdr + tail


class VXLAN(Layer):
    defaults = {"flags": 0x08, "reserved0": 0, "reserved1": 0, "vni": 0, "reserved2": 0, "gpflags": None,
                "NextProtocol": None}

    def encode(self, tail):
        f = self.f
        return struct.pack("!BBHI", f["flags"], f["reserved0"], f["reserved1"], (f["vni"] << 8) | f["reserved2"]) + tail


NAMES = {c.__name__: c for c in (Ether, Dot1Q, IP, IPv6, TCP, UDP, GRE, VXLAN, Raw)}


def build(expr):
    """bytes of one scapy expression from a sample description (no other names are visible)."""
    ns = dict(NAMES)
    ns["bytes"] = bytes
    pkt = eval(expr, {"__builtins__": {}}, ns)  # the expressions are data of the checkout under test
    return pkt.build()


def payload_of(frame, loads):
    """The Raw load (one of loads) that frame ends with, or None."""
    for load in loads:
        if load and frame.endswith(load):
            return load
    return None


def load_of(expr):
    ns = dict(NAMES)
    ns["bytes"] = bytes
    pkt = eval(expr, {"__builtins__": {}}, ns)
    while pkt is not None and not isinstance(pkt, Raw):
        pkt = pkt.payload
    if pkt is None:
        return b""
    load = pkt.f["load"]
    return load.encode() if isinstance(load, str) else bytes(load)
