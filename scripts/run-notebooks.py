#!/usr/bin/python3
"""Execute notebooks with the tslab kernel (nbclient) and fail on the first error cell, printing
its source and everything it wrote; nbconvert's own --execute shows only `<Error>:` for tslab.

    /usr/bin/python3 scripts/run-notebooks.py [--html DIR] [--out DIR] [--timeout S] NOTEBOOK...
    /usr/bin/python3 scripts/run-notebooks.py --strip NOTEBOOK...   (remove outputs before committing)

Prints one line per notebook with its time. Exit status 1 if a cell failed. Use the Python that
has Jupyter (Debian's /usr/bin/python3); scripts/run-notebooks.mjs calls this after preparing.
"""
import argparse, os, sys, time

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError


def outputs_text(cell):
    parts = []
    for o in cell.get("outputs", []):
        if o.get("output_type") == "stream":
            parts.append(f"[{o.get('name')}] {o.get('text', '')}")
        elif o.get("output_type") == "error":
            parts.append(f"[error] {o.get('ename')}: {o.get('evalue')}\n" + "\n".join(o.get("traceback", [])))
        else:
            data = o.get("data", {})
            parts.append(f"[{o.get('output_type')}] " + str(data.get("text/plain", ", ".join(data))))
    return "\n".join(parts)


def has_outputs(nb):
    return any(c.get("outputs") or c.get("execution_count") for c in nb.cells if c.get("cell_type") == "code")


def strip(path):
    nb = nbformat.read(path, as_version=4)
    for c in nb.cells:
        if c.get("cell_type") == "code":
            c["outputs"], c["execution_count"] = [], None
    nbformat.write(nb, path)


def run(path, args):
    nb = nbformat.read(path, as_version=4)
    name = os.path.basename(path)
    if has_outputs(nb):
        print(f"FAILED  {name}: it holds outputs; notebooks are committed without them "
              f"(/usr/bin/python3 scripts/run-notebooks.py --strip {path})", flush=True)
        return False
    client = NotebookClient(nb, timeout=args.timeout, kernel_name=args.kernel,
                            resources={"metadata": {"path": os.path.dirname(os.path.abspath(path))}})
    started = time.monotonic()
    failure = None  # (cell index, why)
    # Cell by cell, so that the failing one is known: tslab's failures come as an execute reply
    # with status "error" and the message on the cell's stderr, not as an error output.
    with client.setup_kernel():
        for index, cell in enumerate(nb.cells):
            try:
                client.execute_cell(cell, index)
            except (CellExecutionError, CellTimeoutError, DeadKernelError) as e:
                failure = (index, f"{type(e).__name__}: {str(e).strip().splitlines()[-1] if str(e).strip() else ''}")
                break
    seconds = time.monotonic() - started
    if args.out:
        nbformat.write(nb, os.path.join(args.out, name))
    if args.html:
        from nbconvert import HTMLExporter
        body, _ = HTMLExporter().from_notebook_node(nb)
        with open(os.path.join(args.html, name.replace(".ipynb", ".html")), "w") as f:
            f.write(body)
    if failure is None:
        print(f"ok      {name}  {seconds:.1f} s", flush=True)
        return True
    index, why = failure
    cell = nb.cells[index]
    print(f"FAILED  {name}  {seconds:.1f} s: cell {index} ({why})", flush=True)
    print(f"--- cell {index} ---\n{cell.source}\n--- its output ---\n{outputs_text(cell)}\n---", flush=True)
    return False


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("notebooks", nargs="+")
    p.add_argument("--kernel", default="tslab")
    p.add_argument("--timeout", type=int, default=300, help="seconds per cell")
    p.add_argument("--out", help="write the executed notebooks here")
    p.add_argument("--html", help="export the executed notebooks to HTML here")
    p.add_argument("--strip", action="store_true", help="remove the outputs of the notebooks in place, run nothing")
    args = p.parse_args()
    if args.strip:
        for nb in args.notebooks:
            strip(nb)
        return
    for d in (args.out, args.html):
        if d:
            os.makedirs(d, exist_ok=True)
    ok = [run(nb, args) for nb in args.notebooks]
    sys.exit(0 if all(ok) else 1)


if __name__ == "__main__":
    main()
