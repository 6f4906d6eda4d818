def choose(M, N, K):
    if M <= abc:
