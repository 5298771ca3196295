# Writes the seed corpus of fuzz_handlers: one request per method, the first byte naming the
# method (fuzz_handlers.cpp), the rest the request message encoded by hand from kernel.proto.
#   python3 tests/fuzz/fuzz_handlers.seeds.py tests/fuzz/corpus/fuzz_handlers
import struct, hashlib, os, sys
out = sys.argv[1]
def varint(n):
    b = b''
    while True:
        x = n & 0x7f; n >>= 7
        if n: b += bytes([x | 0x80])
        else: return b + bytes([x])
def key(f, t): return varint((f << 3) | t)
def ln(f, data): return key(f, 2) + varint(len(data)) + data
def vi(f, v): return key(f, 0) + varint(v)
def f64(f, v): return key(f, 1) + struct.pack('<Q', v)
SR = 0x8baeb925f177af87; RR = 0x26332c9543501ce9
def sel(target=b'gfx1101', mode=1, fp8=None, swin=None):
    s = ln(1, target) + vi(2, mode)
    if fp8 is not None: s += vi(3, fp8)
    if swin is not None: s += vi(4, swin)
    return s
M = {'Prepare':0,'PutModule':1,'Resolve':2,'Build':3,'Status':4,'Import':5,'List':6,'Purge':7}
seeds = {}
seeds['resolve_bytes'] = bytes([M['Resolve']]) + f64(1, SR) + ln(2, b'd4r_test_layer') + ln(3, sel())
seeds['resolve_path'] = bytes([M['Resolve']]) + f64(1, SR) + ln(2, b'dl4rt_input_kernel') + ln(3, sel()) + vi(5, 1)
seeds['resolve_fp8'] = bytes([M['Resolve']]) + f64(1, SR) + ln(2, b'd4r_test_layer') + ln(3, sel(b'gfx1201', 1, 1))
seeds['resolve_accuracy'] = bytes([M['Resolve']]) + f64(1, SR) + ln(2, b'd4r_test_layer') + ln(3, sel(b'gfx1101', 2))
seeds['resolve_rr'] = bytes([M['Resolve']]) + f64(1, RR) + ln(2, b'cuda_dldn_engine_test_kernel') + ln(3, sel())
seeds['resolve_swin_off'] = bytes([M['Resolve']]) + f64(1, SR) + ln(2, b'rrlite_enc1_4x4') + ln(3, sel(swin=0))
seeds['resolve_damaged'] = bytes([M['Resolve']]) + f64(1, SR) + ln(2, b'd4r_test_simple') + ln(3, sel()) + vi(5, 1) + ln(7, b'\x11' * 32)
seeds['resolve_broken'] = bytes([M['Resolve']]) + f64(1, SR) + ln(2, b'd4r_broken_prep') + ln(3, sel()) + vi(4, 50)
seeds['resolve_recipe'] = bytes([M['Resolve']]) + f64(1, SR) + ln(2, b'd4r_example_layer') + ln(3, sel(b'gfx1100')) + vi(4, 10) + vi(6, 1)
seeds['build'] = bytes([M['Build']]) + ln(1, b'd4r_example_wave64') + ln(2, sel(b'gfx1102')) + vi(3, 10)
ptx = b'.version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n\tret;\n}\n'
def fnv(data):
    h = 0xcbf29ce484222325
    for c in data: h = ((h ^ c) * 0x100000001b3) & 0xffffffffffffffff
    return h
seeds['prepare'] = bytes([M['Prepare']]) + ln(1, f64(1, SR) + ln(2, hashlib.sha256(ptx).digest())) + ln(2, b'd4r_test_layer') + ln(2, b'd4r_example_layer') + ln(3, sel())
seeds['put_module'] = bytes([M['PutModule']]) + ln(1, f64(1, fnv(ptx)) + ln(2, hashlib.sha256(ptx).digest())) + ln(2, ptx)
seeds['status'] = bytes([M['Status']])
seeds['import'] = bytes([M['Import']])
seeds['list'] = bytes([M['List']]) + vi(1, 2)
seeds['purge'] = bytes([M['Purge']]) + vi(1, 1)
os.makedirs(out, exist_ok=True)
for name, data in seeds.items():
    open(os.path.join(out, name + '.bin'), 'wb').write(data)
print(len(seeds), 'seeds')
