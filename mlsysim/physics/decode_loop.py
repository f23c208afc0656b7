"""Per-token work beside the forward pass: sampling traffic, grammar masks, speculative decoding (§A.2)."""
from __future__ import annotations

from ..units import Q_
from ._check import need, number
from .equations import equation


def _bytes(x, name):
    return need(x, "byte", name) if hasattr(x, "units") else Q_(x, "byte")


@equation("m_logit = |V| · b_logit", name_en="bytes of one logit vector", name_zh="一个 logit 向量的字节数", unit="B")
def logit_bytes(vocab, bytes_per_logit):
    """One logit vector: |V| · b_logit bytes."""
    return (number(vocab, "vocab") * _bytes(bytes_per_logit, "bytes_per_logit")).to("byte")


@equation("B · R", name_en="tokens emitted per second", name_zh="每秒输出的词元数", unit="1/s")
def token_rate(batch, tokens_per_second):
    """Tokens a server emits per second: B · R."""
    return (number(batch, "batch") * need(tokens_per_second, "1/second", "tokens_per_second")).to("1/second")


@equation("B · R · |V| · b_logit", name_en="raw logit traffic", name_zh="原始 logits 的传输量", unit="B/s")
def logit_traffic(batch, tokens_per_second, vocab, bytes_per_logit):
    """Raw logits shipped off the accelerator: B · R · |V| · b_logit bytes/s."""
    return (token_rate(batch, tokens_per_second) * logit_bytes(vocab, bytes_per_logit)).to("byte/second")


@equation("B · R · b_id", name_en="token identifier traffic", name_zh="词元标识符的传输量", unit="B/s")
def token_id_traffic(batch, tokens_per_second, bytes_per_id):
    """Sampled token identifiers instead: B · R · b_id bytes/s."""
    return (token_rate(batch, tokens_per_second) * _bytes(bytes_per_id, "bytes_per_id")).to("byte/second")


@equation("|V| / 8", name_en="bytes of one grammar mask", name_zh="一个语法掩码的字节数", unit="B")
def grammar_mask_bytes(vocab):
    """One bit per vocabulary entry: |V| / 8 bytes."""
    return Q_(number(vocab, "vocab") / 8, "byte")


@equation("|Q| · |V| / 8", name_en="bytes of a dense grammar mask table", name_zh="稠密语法掩码表的字节数", unit="B")
def grammar_table_bytes(vocab, states):
    """|Q| · |V| / 8 bytes for a dense mask table over |Q| automaton states."""
    return (number(states, "states") * grammar_mask_bytes(vocab)).to("byte")


@equation("T_mask = t_mask · S_out", name_en="critical-path delay of a host-side grammar mask",
          name_zh="主机端语法掩码在关键路径上的延迟", unit="s")
def host_mask_stall(per_token_overhead, output_tokens):
    """Critical-path stall of a host-side automaton: overhead per token × output length."""
    return (need(per_token_overhead, "second", "per_token_overhead") * number(output_tokens, "output_tokens")).to("second")


@equation("E[tokens] = (1 − a^(k+1)) / (1 − a)", name_en="expected tokens per target pass (speculative decoding)",
          name_zh="推测解码中每次目标模型前向传播的期望词元数")
def speculative_expected_tokens(acceptance: float, draft_len: int) -> float:
    """Expected tokens per target pass, (1 − a^(k+1)) / (1 − a), for i.i.d. acceptance a and k drafts.

    Between 1 (a = 0) and k + 1 (a = 1) [Leviathan et al. 2023, eq. 1].
    """
    a, k = float(acceptance), int(draft_len)
    if not 0 <= a <= 1 or k < 0:
        raise ValueError(f"need 0 <= acceptance <= 1 and draft_len >= 0, got {acceptance}, {draft_len}")
    if a == 1:
        return float(k + 1)
    return (1 - a ** (k + 1)) / (1 - a)


__all__ = [n for n, f in list(globals().items())
           if callable(f) and getattr(f, "__module__", "") == __name__ and not n.startswith("_")]
