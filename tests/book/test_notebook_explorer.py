"""The take-away notebook (``_notebooks/<lang>/explorer.ipynb``) runs in a real Jupyter kernel (nbclient), and
changing the accelerator the way a notebook frontend does (a widget ``update`` comm message) updates the values.
"""
from __future__ import annotations

import json
import time
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from nbformat.v4 import new_code_cell

ROOT = Path(__file__).resolve().parents[2]


def _stdout(cell) -> str:
    return "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")


def _result(cell) -> str:
    for o in cell.outputs:
        if o.output_type == "execute_result":
            return o.data["text/plain"]
    raise AssertionError(f"no result: {cell.outputs}")


@pytest.mark.parametrize("lang, label", [("en", "Accelerator"), ("zh", "加速器")])
def test_explorer_notebook_runs_and_follows_the_widget(lang, label):
    path = ROOT / "_notebooks" / lang / "explorer.ipynb"
    nb = nbformat.read(path, as_version=4)
    assert lang == "en" or "探索器" in nb.cells[0].source
    client = NotebookClient(nb, timeout=180, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}})
    with client.setup_kernel():
        for i, cell in enumerate(nb.cells):
            client.execute_cell(cell, i)
        widget = next(o for o in nb.cells[1].outputs if o.output_type == "execute_result")
        assert "application/vnd.jupyter.widget-view+json" in widget.data          # a live widget, not a picture
        # the reference choice: H100 SXM, 1,978.9 TFLOP/s dense fp8 over 3.35 TB/s -> ratio 1978.9/(2*3.35) = 295
        assert "'decode_to_prefill_ratio': '295'" in _result(nb.cells[3])
        probe = new_code_cell('import json; print(json.dumps({"acc": box.accelerator.model_id, '
                              '"options": [v for _, v in box.accelerator.options], '
                              '"desc": box.accelerator.description}))')
        nb.cells.append(probe)
        client.execute_cell(probe, len(nb.cells) - 1)
        info = json.loads(_stdout(probe))
        assert info["desc"] == label
        # what a frontend sends when the reader picks B200 in the dropdown
        msg = client.kc.session.msg("comm_msg", {"comm_id": info["acc"], "data": {
            "method": "update", "state": {"index": info["options"].index("B200")}, "buffer_paths": []}})
        client.kc.shell_channel.send(msg)
        time.sleep(1.0)
        read = new_code_cell('print(json.dumps([box.accelerator.value, box.precision.value, '
                             'box.view["shown"]["decode_to_prefill_ratio"], box.view["shown"]["ridge_flop_per_byte"], '
                             '[t.x[0] for t in box.figure.data if t.meta["key"] == "ridge"][0]]))')
        nb.cells.append(read)
        client.execute_cell(read, len(nb.cells) - 1)
        acc, prec, ratio, ridge, ridge_x = json.loads(_stdout(read))
    # HGX B200: 4,500 TFLOP/s dense fp8, 8 TB/s: fp8 is kept; ratio 4500/(2*8) = 281.25, ridge 4500/8 = 562.5
    assert (acc, prec, ratio) == ("B200", "fp8", "281")
    assert ridge == "563" and abs(ridge_x - 562.5) < 1e-9    # 562.5 rounded half up, as the book rounds
