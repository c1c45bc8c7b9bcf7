"""LogGP model of Shoal's one-sided broadcast (shoal_rma_bcast, src/rbcast/core.c).

The RMA broadcast paper (shared/seeds/000_eaf25583d401ea87.txt, section 3) gives the binomial
broadcast in LogP/LogGP as

    t = (o + (m - 1) G + 2g + L + o_r) * log2(P) + o + L

(it prints "2q": read as 2g, the gaps between the data, descriptor and request-flag messages of one
PutRequest). This module keeps that formula (paper_binomial) and adds a model that follows Shoal's
implementation operation by operation, for both algorithms, any p (not only powers of two), the
root-busy time as well as the completion, and the two paths (direct: shared memory; mpi: MPI RMA).

Parameters (microseconds; G and G_copy in microseconds per byte):

    L     latency: from a put/store's issue to its visibility at the target
    o     overhead: the issuing CPU's time for one non-blocking put call (8 B)
    g     gap: the shortest interval between consecutive small puts of one process
    G     gap per byte: per-byte time of a large put
    o_r   the relay's request-wait overhead: from its request word changing to the relay thread
          running (spinning: about 0; asleep: the futex wake-up on the direct path, the polling
          backoff on the MPI path)
    a     one blocking control atomic (fetch-add, load or store, completed). Default: o on the
          direct path (a CPU atomic), o + 2L on the MPI path (an MPI atomic and MPI_Win_flush: a
          round trip)
    wake  the writer's cost of a futex wake when the relay sleeps (default 0)
    path  "direct" (a put is complete when its copy returns) or "mpi" (a flush costs 2L)

Building blocks (m bytes; every operation as core.c issues it):

    put(m)   = o + (m - 1) G                    the issuer's time for a put of m bytes
    step(m)  = max(g, put(m))                   interval between back-to-back puts
    F        = 0 (direct), 2L (mpi)             one flush (MPI_Win_flush / _all)
    start    = 3a                               ticket fetch-add at member 0, SERVING load, own
                                                DONE load (the paper's step 1)
    PR(m)    = put(m) + put(40) + 2F + a + wake PutRequest: data, 40-byte descriptor, both
                                                flushed, request word store, futex wake

Linear (figure 3; core.c rb_broadcast):

    busy_lin(p, m) = start + (p - 2) step(m) + put(m) + F + (p - 1) a + 2a
                     (p - 1 puts, flush_all, p - 1 request-word stores, the root's DONE add and
                     the SERVING add)
    T_lin(p, m)    = busy_lin + a                (the root's wait reads DONE once)

Binomial (figures 6-9; core.c put_loop, relay_serve): shifted ranks, root 0; the children of s are
s + 2^k for every 2^k below s's lowest set bit (the root: below p), largest first, sent one after
the other. With t(0) = start, the i-th child c of s has its request at
t(s) + i PR(m) + L + o_r and starts forwarding at t(c) = that + o (reading the descriptor); s's
relay ends at e(s) = t(s) + n_children(s) PR(m) and then adds 1 to the root's DONE (a).

    busy_bin(p, m) = start + ceil(log2 p) PR(m)
    T_bin(p, m)    = max over s != 0 of (e(s) + a)  +  a     (the root's last DONE read)

For p a power of two the last member is p - 1, reached through log2 p first children, so

    T_bin(2^k, m) = start + k (PR(m) + L + o_r + o) + 2a

the paper's form with its per-stage cost o + (m - 1) G + 2g + L + o_r replaced by what a stage
costs here (PR + L + o_r + o) and its final o + L (the DONE add) by 2a.

Crossover: binomial beats linear where T_bin < T_lin. For fixed p, T_lin grows with (p - 1) G m
and T_bin with at most ceil(log2 p) G m (more precisely: the most PutRequests on one root-to-leaf
path), so there is at most one crossing in m once put(m) > g: crossover_size finds it by doubling,
then bisection. For a fixed m, crossover_units scans p (T_bin is a step function of the tree's
depth).

What the model leaves out: on one node the members' copies share the memory bandwidth (G is
measured with one copy at a time), and with more processes than cores the relays wait for a core
(o_r grows with the scheduler's latency). Both make the measured crossover later than predicted on
an oversubscribed machine.

Measuring the parameters: bench/bench_rma_bcast --loggp prints lines

    loggp: path=shoal-direct mpi=MPICH_4.0.2 units=2 L=... o=... g=... G=... a=... o_r=... ...

that read_params() reads (tools/loggp/README.md). Standard library only (Python 3.6+).
"""

import math

__all__ = [
    "Params", "put_time", "linear_busy", "linear_time", "binomial_busy", "binomial_time",
    "binomial_schedule", "paper_binomial", "crossover_size", "crossover_units", "parse_loggp_line",
    "read_params", "read_bench_csv", "measured_crossover_size", "measured_crossover_units",
]

DESCR_BYTES = 40  # rb_descr_t: five uint64_t


class Params(object):
    """LogGP parameters of one path. Times in us, G in us per byte."""

    def __init__(self, L, o, g, G, o_r=0.0, a=None, wake=0.0, path="direct", name=None):
        self.L = max(0.0, float(L))
        self.o = max(0.0, float(o))
        self.g = max(0.0, float(g))
        self.G = max(0.0, float(G))
        self.o_r = 0.0 if o_r is None or _isnan(o_r) else max(0.0, float(o_r))
        self.path = "mpi" if "mpi" in str(path) else "direct"
        self.wake = max(0.0, float(wake or 0.0))
        if a is None or _isnan(a):
            a = self.o + (2 * self.L if self.path == "mpi" else 0.0)
        self.a = max(0.0, float(a))
        self.name = name or self.path

    @classmethod
    def from_dict(cls, d, **override):
        """From a parse_loggp_line() dict (keys L, o, g, G, o_r, a, path)."""
        kw = dict(L=d["L"], o=d["o"], g=d["g"], G=d["G"], o_r=d.get("o_r", 0.0), a=d.get("a"),
                  wake=d.get("wake", 0.0), path=d.get("path", "direct"), name=d.get("path"))
        kw.update(override)
        return cls(**kw)

    def flush(self):
        return 2 * self.L if self.path == "mpi" else 0.0

    def __repr__(self):
        return ("Params(path=%s, L=%.4g, o=%.4g, g=%.4g, G=%.4g, o_r=%.4g, a=%.4g, wake=%.4g)" %
                (self.name, self.L, self.o, self.g, self.G, self.o_r, self.a, self.wake))


def _isnan(x):
    try:
        return math.isnan(float(x))
    except (TypeError, ValueError):
        return False


def put_time(m, P):
    """The issuer's time for one put of m bytes: o + (m - 1) G."""
    return P.o + max(0, m - 1) * P.G


def _step(m, P):
    return max(P.g, put_time(m, P))


def _start(P):
    return 3 * P.a


def _put_request(m, P):
    return put_time(m, P) + put_time(DESCR_BYTES, P) + 2 * P.flush() + P.a + P.wake


def _children(s, p):
    """Shifted ranks of s's children in the order put_loop() serves them (largest subtree
    first)."""
    if s == 0:
        mask = 1
        while mask < p:
            mask <<= 1
    else:
        mask = s & -s
    out = []
    mask >>= 1
    while mask > 0:
        if s + mask < p:
            out.append(s + mask)
        mask >>= 1
    return out


def _ceil_log2(p):
    k = 0
    while (1 << k) < p:
        k += 1
    return k


def linear_busy(p, m, P):
    """Root-busy time of a linear broadcast (until shoal_rma_bcast returns), us."""
    if p <= 1:
        return _start(P) + P.a
    return (_start(P) + (p - 2) * _step(m, P) + put_time(m, P) + P.flush() + (p - 1) * P.a +
            2 * P.a)


def linear_time(p, m, P):
    """Completion time of a linear broadcast (until shoal_rma_bcast_wait returns), us."""
    return linear_busy(p, m, P) + P.a


def binomial_busy(p, m, P):
    """Root-busy time of a binomial broadcast: start + ceil(log2 p) PutRequests, us."""
    if p <= 1:
        return _start(P) + P.a
    return _start(P) + _ceil_log2(p) * _put_request(m, P)


def binomial_schedule(p, m, P):
    """Per shifted rank s: (request time, forwarding start, relay end), us; the root's request
    time is 0. O(p log p)."""
    pr = _put_request(m, P)
    t_req = [0.0] * p
    t_go = [0.0] * p
    t_end = [0.0] * p
    t_go[0] = _start(P)
    for s in range(p):
        kids = _children(s, p)
        for i, c in enumerate(kids, 1):
            t_req[c] = t_go[s] + i * pr + P.L + P.o_r
            t_go[c] = t_req[c] + P.o
        t_end[s] = t_go[s] + len(kids) * pr
    return list(zip(t_req, t_go, t_end))


def binomial_time(p, m, P):
    """Completion time of a binomial broadcast (the root's DONE full and read), us."""
    if p <= 1:
        return _start(P) + P.a
    sched = binomial_schedule(p, m, P)
    return max(e + P.a for _, _, e in sched[1:]) + P.a


def paper_binomial(p, m, P):
    """The paper's LogGP formula (section 3), its 2q read as 2g:
    (o + (m - 1) G + 2g + L + o_r) ceil(log2 p) + o + L."""
    return (P.o + max(0, m - 1) * P.G + 2 * P.g + P.L + P.o_r) * _ceil_log2(p) + P.o + P.L


def _bin_wins(p, m, P):
    return binomial_time(p, m, P) < linear_time(p, m, P)


def crossover_size(p, P, m_max=1 << 36):
    """The smallest message size (bytes) at which binomial completes before linear on p members,
    or None when it does not up to m_max."""
    if p < 2:
        return None
    if _bin_wins(p, 1, P):
        return 1
    lo, hi = 1, 2
    while not _bin_wins(p, hi, P):
        lo, hi = hi, hi * 2
        if hi > m_max:
            return None
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if _bin_wins(p, mid, P):
            hi = mid
        else:
            lo = mid
    return hi


def crossover_units(m, P, p_max=100000):
    """The smallest team size p >= 2 at which binomial completes before linear for m bytes, or None
    up to p_max. Scans every p up to 1024, then steps of 1/16 of p (each evaluation is O(p))."""
    p = 2
    while p <= p_max:
        if _bin_wins(p, m, P):
            return p
        p = p + 1 if p < 1024 else p + max(1, p // 16)
    return None


# ---- Reading measurements ------------------------------------------------------------------------

def parse_loggp_line(line):
    """'loggp: path=shoal-direct mpi=MPICH_4.0.2 units=2 L=0.1 ...' -> dict (numbers as floats;
    None when the line is not a loggp line)."""
    i = line.find("loggp:")
    if i < 0:
        return None
    d = {}
    for tok in line[i + len("loggp:"):].split():
        if "=" not in tok:
            continue
        k, v = tok.split("=", 1)
        try:
            d[k] = float(v)
        except ValueError:
            d[k] = v
    return d if all(k in d for k in ("L", "o", "g", "G")) else None


def read_params(path):
    """Every loggp line of a file (bench_rma_bcast --loggp output or its --csv file) ->
    {(mpi, path): Params}; path is "shoal-direct", "shoal-mpi" or "mpi-raw"."""
    out = {}
    with open(path) as f:
        for line in f:
            d = parse_loggp_line(line)
            if d:
                out[(str(d.get("mpi", "?")), str(d.get("path", "?")))] = Params.from_dict(d)
    return out


def read_bench_csv(path, stat="median"):
    """bench_rma_bcast's --csv -> dict(meta={...}, latency={variant: {size: us}}). Variants:
    linear, linear_busy, binomial, binomial_busy, shoal_broadcast, mpi_bcast, puts, memcpy."""
    import csv
    meta, lat = {}, {}
    with open(path) as f:
        lines = list(f)
    for line in lines:
        if line.startswith("# bench_rma_bcast"):
            # "# bench_rma_bcast mpi=MPICH 4.0.2 np=2 direct=1 path=direct cores=2 ..."
            rest = line.split("bench_rma_bcast", 1)[1]
            keys = ["mpi", "np", "direct", "path", "cores", "stat", "cpu"]
            for j, k in enumerate(keys):
                a = rest.find(" %s=" % k)
                if a < 0:
                    continue
                a += len(k) + 2
                b = len(rest)
                for k2 in keys[j + 1:]:
                    c = rest.find(" %s=" % k2, a)
                    if c >= 0:
                        b = c
                        break
                meta[k] = rest[a:b].strip()
    rows = [l for l in lines if not l.startswith("#")]
    col = "min" if stat == "min" else "median"
    for r in csv.DictReader(rows):
        if r.get("section") != "latency" or r.get("status") != "ok":
            continue
        try:
            lat.setdefault(r["variant"], {})[int(r["size_bytes"])] = float(r[col])
        except (KeyError, ValueError):
            continue
    return dict(meta=meta, latency=lat)


def measured_crossover_size(data):
    """The smallest measured size from which binomial completion is below linear's at that size
    and every larger measured one; None when binomial does not win at the largest."""
    lin, bino = data["latency"].get("linear", {}), data["latency"].get("binomial", {})
    sizes = sorted(set(lin) & set(bino))
    best = None
    for m in reversed(sizes):
        if bino[m] < lin[m]:
            best = m
        else:
            break
    return best


def measured_crossover_units(datas, m):
    """From runs at several unit counts: the smallest p at which binomial beats linear for size m
    and at every larger measured p; None when it does not win at the largest."""
    pts = []
    for d in datas:
        lin = d["latency"].get("linear", {}).get(m)
        bino = d["latency"].get("binomial", {}).get(m)
        if lin is not None and bino is not None:
            pts.append((int(d["meta"].get("np", 0)), bino < lin))
    best = None
    for p, wins in sorted(pts, reverse=True):
        if wins:
            best = p
        else:
            break
    return best
