"""An independent byte-level model of NPU local-memory plans, written from docs/design/npu-local-memory.md's
formulas (address -> NPU and offset, channels per NPU, aligned/compact strides, 4N/2N/2IC packing,
matrix layout). It enumerates every stored byte of every tensor and shares no code with tessera."""
import math

PRESETS = {"bm1684": (64, 512 * 1024, 128, 8), "bm1684x": (64, 256 * 1024, 64, 16),
           "bm1688": (32, 128 * 1024, 16, 16)}
BYTES = {"f32": 4, "f16": 2, "bf16": 2, "s8": 1, "u8": 1, "s16": 2, "u16": 2, "s32": 4}
PACKING = {"none": 1, "4N": 4, "2N": 2, "2IC": 2}


def device(text):
    if text in PRESETS:
        return PRESETS[text]
    kv = dict(item.split("=") for item in text.split(","))
    return int(kv["npus"]), int(kv["lmem"]), int(kv["align"]), int(kv.get("banks", 1))


class Tensor:
    def __init__(self, dev, spec, address):
        self.X, self.S, self.align, self.banks = dev
        self.name = spec["name"]
        self.e = BYTES[spec["dtype"]]
        if "rows" in spec:  # spec "Matrix Layout": (N, ceil(M/W), 1, W) in the aligned layout
            w = spec["w"]
            self.shape = (spec["rows"], -(-spec["cols"] // w), 1, w)
            layout, mode = "aligned", "none"
        else:
            self.shape = tuple(spec["shape"])
            layout, mode = spec.get("layout", "aligned"), spec.get("mode", "none")
        self.p = PACKING[mode]
        self.E = self.e * self.p
        self.Q, self.R = divmod(address, self.S)
        N, C, H, W = self.shape
        self.Np = -(-N // self.p)
        self.cpn = -(-(self.Q + C) // self.X)
        if layout == "aligned":
            unit = self.align * self.E // math.gcd(self.align, self.E)
            self.CS = -(-(H * W * self.E) // unit) * unit // self.E
        else:
            self.CS = H * W
        self.NS = self.CS * self.cpn
        last = (self.Np - 1) * self.NS + (self.cpn - 1) * self.CS + (H - 1) * W + (W - 1)
        self.reserved = (last + 1) * self.E
        self.fits = self.R + self.reserved <= self.S

    def stored(self):
        """{npu: {byte: element or None (dummy)}} of every stored byte."""
        N, C, H, W = self.shape
        out = {}
        for c in range(C):
            npu, row = (self.Q + c) % self.X, (self.Q + c) // self.X
            mine = out.setdefault(npu, {})
            for m in range(self.Np):
                for h in range(H):
                    for w in range(W):
                        base = self.R + (m * self.NS + row * self.CS + h * W + w) * self.E
                        for k in range(self.p):
                            n = m * self.p + k
                            element = (n, c, h, w) if n < N else None
                            for b in range(self.e):
                                mine[base + k * self.e + b] = element
        return out

    def band(self):
        return range(self.R, self.R + self.reserved)


def check(plan, addresses):
    """What tessera must report for `plan` with the given addresses (name -> address)."""
    dev = device(plan["device"])
    tensors = [Tensor(dev, t, addresses[t["name"]]) for t in plan["tensors"]]
    fitting = [t for t in tensors if t.fits]
    stored = {t.name: t.stored() for t in fitting}
    overlaps, reuse = [], []
    for i, a in enumerate(fitting):
        for b in fitting[i + 1:]:
            # One entry per pair over all NPUs, never one per NPU.
            shared = {}
            for npu in range(dev[0]):
                common = stored[a.name].get(npu, {}).keys() & stored[b.name].get(npu, {}).keys()
                if common:
                    shared[npu] = common
            if shared:
                npu = min(shared)
                first = min(shared[npu])
                overlaps.append({"a": a.name, "b": b.name, "npus": len(shared), "first_npu": npu,
                                 "last_npu": max(shared), "bytes": sum(map(len, shared.values())),
                                 "byte_range": [min(map(min, shared.values())),
                                                max(map(max, shared.values())) + 1],
                                 "first_byte": first, "a_element": stored[a.name][npu][first],
                                 "b_element": stored[b.name][npu][first]})
                continue
            for inner, outer in ((a, b), (b, a)):
                band = set(outer.band())
                npus = [(npu, len(band & stored[inner.name].get(npu, {}).keys())) for npu in range(dev[0])]
                npus = [(npu, n) for npu, n in npus if n]
                if npus:
                    reuse.append({"tensor": inner.name, "inside": outer.name, "npu": npus[0][0],
                                  "bytes": sum(n for _, n in npus)})
    bank_bytes = dev[1] // dev[3]
    banks = {t.name: [sorted({b // bank_bytes for b in stored[t.name].get(npu, {})})
                      for npu in range(dev[0])] for t in fitting}
    npus = []
    for npu in range(dev[0]):
        used = set()
        for t in fitting:
            used |= stored[t.name].get(npu, {}).keys()
        edges = [-1] + sorted(used) + [dev[1]]
        largest = max(b - a - 1 for a, b in zip(edges, edges[1:]))
        npus.append({"npu": npu, "used_bytes": len(used), "free_bytes": dev[1] - len(used),
                     "largest_free_run": largest})
    return {"tensors": tensors, "overlaps": overlaps, "empty_block_reuse": reuse, "banks": banks,
            "npus": npus}


def smallest_slices(dev, spec, address):
    """Per dim with more than one value: the fewest slices (brute force) whose first slice fits."""
    base = Tensor(dev, spec, address)
    out = []
    for axis, dim in enumerate("NCHW"):
        extent = base.shape[axis]
        if extent < 2:
            continue
        for count in range(2, extent + 1):
            shape = list(base.shape)
            shape[axis] = -(-extent // count)
            sliced = dict(spec, shape=shape)
            sliced.pop("rows", None)
            if "rows" in spec:
                sliced.update(layout="aligned", mode="none")
            t = Tensor(dev, sliced, address)
            if t.fits:
                out.append({"dim": dim, "count": count, "shape": shape, "bytes_per_npu": t.reserved})
                break
    return out
