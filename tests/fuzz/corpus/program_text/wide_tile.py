# A tile wider than cdiv can name: the program parses, and its wave guards must leave that rule alone.
def choose(M, N, K):
    if M <= 16:
        return Config(BM=16, BN=641000, BK=128, warps=4, stages=4, group=1)
    return Config(BM=128, BN=128, BK=64, warps=4, stages=3, group=8)
