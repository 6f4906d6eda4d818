# The lecture's expert heuristic moved into the config space of data/replay/h200_triton.csv
# (48 configs the h200 profile allows, drawn with `tilevolve measure --configs sample:48
# --seed 2`, timed on one H200). Decode (M <= 16) keeps the small 16-row tile with the deep K
# step (16x64x128; the sample has it with 2 warps and 3 stages); every other shape gets the
# sample's one 128x128x64 config (4 warps, 2 stages, group 4). Not fitted to the data; use
# with --backend table:data/replay/h200_triton.csv --gpu h200.
def choose(M, N, K):
    if M <= 16:
        return Config(BM=16, BN=64, BK=128, warps=2, stages=3, group=1)
    return Config(BM=128, BN=128, BK=64, warps=4, stages=2, group=4)
