# The lecture's expert heuristic moved into the config space of the H100 AutoHeuristic data
# (data/replay/h100_mm.txt: the 29 Triton mm configs PyTorch Inductor tried, all launched with
# GROUP_M=8, so group=8 here). Decode (M <= 16) gets Inductor's small deep-K candidate
# 32x32x128 / 4 warps / 2 stages (Inductor shrinks it to 16 rows and 2 warps for such M);
# every other shape gets the common 128x128x64 / 4 warps / 3 stages default. Not fitted to
# the data; use with --backend replay:data/replay/h100_mm.txt --gpu h100.
def choose(M, N, K):
    if M <= 16:
        return Config(BM=32, BN=32, BK=128, warps=4, stages=2, group=8)
    return Config(BM=128, BN=128, BK=64, warps=4, stages=3, group=8)
