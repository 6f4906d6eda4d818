def choose(M, N, K):
    # decode
    if 1 <= M <= 16 and (K >= 4_096): return Config(BM=16, BN=64, BK=128, warps=4, stages=4, group=1, waves_per_eu=2, matrix_instr_nonkdim=16, kpack=2)
    elif N * M < 10:
        return Config(
            BM=32, BN=32, BK=32, warps=2, stages=2, group=1,
        )
    else:
        return 'vendor'
