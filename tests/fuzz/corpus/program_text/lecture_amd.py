# The lecture's expert heuristic adapted to AMD Instinct GPUs (Triton on ROCm): the same
# decode rule and 128x128x64 / 4 waves default, with num_stages=2, the usual choice of the
# AMD stream pipeliner (one LDS buffer plus one register buffer; 3 stages would need 64 KiB
# more LDS for the decode tile and is outside the AMD config space for 4+).
def choose(M, N, K):
    if M <= 16:
        return Config(BM=16, BN=64, BK=128, warps=4, stages=2, group=1)
    return Config(BM=128, BN=128, BK=64, warps=4, stages=2, group=8)
