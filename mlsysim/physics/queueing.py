"""Little's law for trajectories and the queueing knee (Appendix A, §A.4)."""
from __future__ import annotations


from ._check import need, number
from .equations import equation


@equation("L = λ · W", name_en="mean number in the system (Little's law)", name_zh="系统内的平均数量（利特尔定律）",
          ref="eq-appdx-littles-law")
def littles_law(arrival_rate, time_in_system) -> float:
    """L = λ · W (eq-appdx-littles-law): mean number inside a stable system."""
    return float((need(arrival_rate, "1/second", "arrival_rate") * need(time_in_system, "second", "time_in_system")).to("").magnitude)


@equation("W_traj = H (T_model + T_tool)", name_en="trajectory lifetime", name_zh="轨迹的存续时间", unit="s")
def trajectory_lifetime(turns, t_model, t_tool):
    """W_traj = Σ_k (T_model + T_tool) = H (T_model + T_tool) for identical turns."""
    return (number(turns, "turns") * (need(t_model, "second", "t_model") + need(t_tool, "second", "t_tool"))).to("second")


@equation("W_q / E[S] ≈ (c_a² + c_s²)/2 · ρ/(1 − ρ)", name_en="queueing wait in service times (Kingman)",
          name_zh="以服务时间计的排队等待（Kingman 近似）")
def kingman_wait(ca2: float, cs2: float, rho: float) -> float:
    """W_q / E[S] ≈ (c_a² + c_s²)/2 · ρ/(1 − ρ): Kingman's G/G/1 approximation, in service times."""
    if not 0 <= rho < 1:
        raise ValueError(f"utilization must be in [0, 1), got {rho}")
    return (ca2 + cs2) / 2 * rho / (1 - rho)


@equation("C(c, ρ) = (cρ)^c / (c! (1 − ρ)) / (Σ_{k<c} (cρ)^k / k! + (cρ)^c / (c! (1 − ρ)))",
          name_en="probability of waiting (Erlang C)", name_zh="需要等待的概率（Erlang C）")
def erlang_c(servers: int, rho: float) -> float:
    """P(wait) for M/M/c at per-server utilization ρ (Erlang C)."""
    c = int(servers)
    if c < 1 or not 0 <= rho < 1:
        raise ValueError(f"need servers >= 1 and 0 <= rho < 1, got {servers}, {rho}")
    a = c * rho
    term, total = 1.0, 1.0
    for k in range(1, c):
        term *= a / k
        total += term
    top = term * a / c / (1 - rho) if c > 1 else a / (1 - rho)
    return top / (total + top)


@equation("W_q / E[S] ≈ (c_a² + c_s²)/2 · C(c, ρ) / (c (1 − ρ))",
          name_en="queueing wait in service times, c servers (Allen–Cunneen)",
          name_zh="c 台服务器时以服务时间计的排队等待（Allen-Cunneen 近似）")
def allen_cunneen_wait(ca2: float, cs2: float, rho: float, servers: int) -> float:
    """W_q / E[S] ≈ (c_a² + c_s²)/2 · C(c, ρ) / (c (1 − ρ)) for c servers (Allen–Cunneen)."""
    return (ca2 + cs2) / 2 * erlang_c(servers, rho) / (servers * (1 - rho))


__all__ = [n for n, f in list(globals().items())
           if callable(f) and getattr(f, "__module__", "") == __name__ and not n.startswith("_")]
