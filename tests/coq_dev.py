"""Developer driver: write and compile the Coq file of certificates (python tests/coq_dev.py FILE.json... [--out DIR])."""

import sys
from pathlib import Path

from certify.certificate import parse_certificate
from certify.coq.compile import compile_file
from certify.coq.export import write_coq_file

if __name__ == "__main__":
    args = sys.argv[1:]
    out = Path("/tmp/coq-dev")
    if "--out" in args:
        i = args.index("--out")
        out = Path(args[i + 1])
        del args[i:i + 2]
    for name in args:
        data = Path(name).read_bytes()
        path, coq = write_coq_file(parse_certificate(data), data, out)
        result = compile_file(path)
        print(f"{path}: {'OK' if result.ok else 'REJECTED'} in {result.seconds:.1f} s; {coq.summary()}")
        if not result.ok:
            print(result.message)
