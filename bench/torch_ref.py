"""
The lab's benchmark workload (scripts/bench-workload.ts) in PyTorch, on the CPU: the same GPT
(src/model/gpt.ts: learned token and position embeddings, pre-LayerNorm blocks, causal multi-head
attention with one fused qkv projection, tanh-GELU MLP, output head tied to the token embedding,
biases everywhere, LayerNorm eps 1e-5) and the same work:

- train step: `rows` rows x 64 tokens, next-token loss on the last 32 positions (log-softmax, the
  target's log-prob and the entropy, as the lab's tokenLogprobs computes both), backward,
  global-norm clip at 1, AdamW (lr 1e-4, betas 0.9/0.999, eps 1e-8, weight decay 0.01 on matrices
  and embeddings only), the loss read back;
- decode: `rows` prompts x 32 tokens, then 16 new tokens sampled at temperature 1 with a KV cache
  (the prompt's forward is the first of the 16 steps), one readback of the logits per step.

Medians of `--reps` runs after one warm-up, wall and process CPU time, like the lab's bench.
`npm run bench -- --vs-torch` runs it (bench/torch-ref.ts) and prints both side by side.
Alone: `/usr/bin/python3 bench/torch_ref.py --config '{"vocabSize":48,...}' [--reps 5] [--rows 64] [--threads 1]`.
The last line of output is one JSON object with the figures; the lines before it are for people.
"""

import argparse
import json
import math
import os
import statistics
import sys
import time


def threads_arg():
    """--threads, read before torch loads: OpenBLAS and OpenMP size their pools at load time."""
    i = sys.argv.index("--threads") if "--threads" in sys.argv else -1
    return sys.argv[i + 1] if 0 <= i < len(sys.argv) - 1 else "1"


for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[var] = threads_arg()

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

PROMPT = 32
NEW = 16
TOKENS = 64
LOSS_TOKENS = 32


class Block(torch.nn.Module):
    def __init__(self, C, H, M):
        super().__init__()
        self.H = H
        self.ln1 = torch.nn.LayerNorm(C, eps=1e-5)
        self.qkv = torch.nn.Linear(C, 3 * C)
        self.wo = torch.nn.Linear(C, C)
        self.ln2 = torch.nn.LayerNorm(C, eps=1e-5)
        self.w1 = torch.nn.Linear(C, M)
        self.w2 = torch.nn.Linear(M, C)

    def attention(self, x, cache):
        B, T, C = x.shape
        H, hd = self.H, C // self.H
        q, k, v = self.qkv(x).split(C, dim=2)  # 3 x (B, T, C)
        q, k, v = (t.view(B, T, H, hd).transpose(1, 2) for t in (q, k, v))  # (B, H, T, hd)
        if cache is not None:
            if cache[0] is not None:
                k = torch.cat([cache[0], k], dim=2)  # (B, H, S, hd)
                v = torch.cat([cache[1], v], dim=2)
            cache[0], cache[1] = k, v
        S = k.shape[2]
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(hd))  # (B, H, T, S)
        if T > 1:  # causal; a single new query sees the whole cache
            mask = torch.ones(T, S, dtype=torch.bool).tril(S - T)
            att = att.masked_fill(~mask, -1e9)
        y = att.softmax(-1) @ v  # (B, H, T, hd)
        return self.wo(y.transpose(1, 2).reshape(B, T, C))

    def forward(self, x, cache=None):
        x = x + self.attention(self.ln1(x), cache)
        return x + self.w2(F.gelu(self.w1(self.ln2(x)), approximate="tanh"))


class GPT(torch.nn.Module):
    def __init__(self, cfg):
        super().__init__()
        V, P, C = cfg["vocabSize"], cfg["contextLength"], cfg["dModel"]
        self.wte = torch.nn.Parameter(torch.randn(V, C) * 0.02)
        self.wpe = torch.nn.Parameter(torch.randn(P, C) * 0.02)
        self.blocks = torch.nn.ModuleList(Block(C, cfg["nHeads"], cfg["dMlp"]) for _ in range(cfg["nLayers"]))
        self.lnf = torch.nn.LayerNorm(C, eps=1e-5)
        for name, p in self.named_parameters():
            if name.endswith("bias"):
                torch.nn.init.zeros_(p)
            elif p.dim() == 2 and name not in ("wte", "wpe"):
                std = 0.02 / math.sqrt(2 * cfg["nLayers"]) if (".wo." in name or ".w2." in name) else 0.02
                torch.nn.init.normal_(p, 0.0, std)

    def forward(self, ids, start=0, caches=None):
        """ids (B, T) at positions start..start+T-1 -> logits (B, T, V)."""
        T = ids.shape[1]
        x = self.wte[ids] + self.wpe[start : start + T]
        for l, block in enumerate(self.blocks):
            x = block(x, None if caches is None else caches[l])
        return self.lnf(x) @ self.wte.t()  # tied head


def median_time(n, f):
    """Median wall ms and median process-CPU ms of n runs after one warm-up."""
    f()
    walls, cpus = [], []
    for _ in range(n):
        c0, t0 = time.process_time(), time.perf_counter()
        f()
        walls.append((time.perf_counter() - t0) * 1000)
        cpus.append((time.process_time() - c0) * 1000)
    return statistics.median_low(walls), statistics.median_low(cpus)


def blas():
    """Which BLAS the process loaded: Debian's torch calls whatever libblas.so.3 points to."""
    try:
        with open("/proc/self/maps") as f:
            libs = {line.split("/")[-1].strip() for line in f if "blas" in line}
        return ", ".join(sorted(libs)) or "no BLAS library mapped"
    except OSError:
        return "BLAS unknown"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--config", required=True, help="the lab's GPTConfig as JSON (gptConfig(preset, {contextLength: 64}))")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--rows", type=int, default=64)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--params-only", action="store_true", help="print the parameter count as JSON and stop (a test checks it equals the lab's)")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(1)
    cfg = json.loads(a.config)
    V, R = cfg["vocabSize"], a.rows
    model = GPT(cfg)
    params = sum(p.numel() for p in model.parameters())
    if a.params_only:
        print(json.dumps({"params": params}))
        return
    decay = [p for n, p in model.named_parameters() if p.dim() == 2]
    no_decay = [p for n, p in model.named_parameters() if p.dim() != 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.01}, {"params": no_decay, "weight_decay": 0.0}], lr=1e-4, betas=(0.9, 0.999), eps=1e-8)

    rand = lambda *shape: torch.randint(5, V, shape)
    seq = rand(R, TOKENS + 1)
    inputs, targets = seq[:, :-1], seq[:, 1:]
    mask = torch.zeros(R, TOKENS)
    mask[:, TOKENS - LOSS_TOKENS :] = 1

    def train_step():
        logp_all = model(inputs).log_softmax(-1)  # (R, T, V)
        logp = logp_all.gather(-1, targets.unsqueeze(-1)).squeeze(-1) * mask
        entropy = -(logp_all.exp() * logp_all).sum(-1) * mask  # the lab computes it with the log-probs
        loss = -logp.sum() / mask.sum().clamp(min=1)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        return loss.item(), entropy

    prompts = rand(R, PROMPT)

    @torch.inference_mode()
    def decode():
        caches = [[None, None] for _ in model.blocks]
        ids, out = prompts, []
        for step in range(NEW):
            logits = model(ids, start=0 if step == 0 else PROMPT + step - 1, caches=caches)[:, -1]  # (R, V)
            probs = logits.softmax(-1)
            ids = torch.multinomial(probs, 1)  # (R, 1)
            out.append(ids)
        return torch.cat(out, 1).tolist()  # the readback of the samples

    train_ms, train_cpu = median_time(a.reps, train_step)
    decode_ms, decode_cpu = median_time(a.reps, decode)
    tokens = R * NEW
    res = {
        "implementation": f"PyTorch {torch.__version__} CPU",
        "threads": torch.get_num_threads(),
        "blas": blas(),
        "params": params,
        "trainMs": train_ms,
        "trainCpuMs": train_cpu,
        "decodeTokPerS": tokens / (decode_ms / 1000),
        "decodeTokPerSCpu": tokens / (decode_cpu / 1000),
    }
    print(f"{res['implementation']} ({blas()}), {res['threads']} thread(s), {params} parameters: train {train_ms:.0f} ms/step (cpu {train_cpu:.0f}), KV decode {res['decodeTokPerS']:.0f} tok/s (cpu {res['decodeTokPerSCpu']:.0f})")
    print(json.dumps(res))


if __name__ == "__main__":
    main()
