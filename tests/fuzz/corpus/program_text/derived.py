def choose(M, N, K):
    if M <= 16:
        return Config(BM=16, BN=64, BK=128, warps=4, stages=4, group=1)
    if M <= 256 and N >= 8192:
        return Config(BM=64, BN=128, BK=64, warps=4, stages=4, group=8)
    if cdiv(M, 128) * cdiv(N, 128) <= 132 and M * N >= 1048576:
        return Config(BM=64, BN=64, BK=64, warps=4, stages=4, group=8)
    if M >= 16384:
        return "vendor"
    return Config(BM=128, BN=128, BK=64, warps=4, stages=3, group=8)
