# The lecture's expert heuristic: the hand-written starting point of evolution.
# Decode (M <= 16) reads the weights once per token, so a small 16-row tile with a deep K
# step is enough; every other shape gets the common 128x128x64 / 4 warps / 3 stages default.
def choose(M, N, K):
    if M <= 16:
        return Config(BM=16, BN=64, BK=128, warps=4, stages=4, group=1)
    return Config(BM=128, BN=128, BK=64, warps=4, stages=3, group=8)
