"""Dask for the commands that run on many processes (``certify law``, ``certify sweep``): one way to reach a cluster.

A ``--scheduler`` address is checked as text first (:func:`scheduler_address`: SCHEME://HOST:PORT, decided
at once, before anything is made), then the server must complete Dask's handshake and name itself a
Scheduler within the connect timeout (:func:`probe_scheduler`: a server that is not Dask is one line at
once, one that never answers one line after the timeout), and only then is a Client made
(:func:`connect`); without an address, :func:`connect` starts a ``distributed.LocalCluster`` of
single-threaded worker processes (processes, not threads: python-flint's precision is process-wide).
Every failure is a :class:`ClusterError` (an InputError: one line, exit 2). The workers of a scheduler need
certify installed; nothing here sends code or data but the tasks the commands submit.
"""

from __future__ import annotations

import re

from .errors import InputError

__all__ = ["CONNECT_TIMEOUT", "SCHEDULER_SCHEMES", "ClusterError", "connect", "probe_scheduler", "scheduler_address"]

#: Seconds to wait for a Dask scheduler (``--connect-timeout``): its TCP connection, Dask's handshake and its
#: identity. A scheduler on a LAN or through an SSH tunnel answers within milliseconds and a loaded one within a
#: second or two; 5 s leaves that margin and bounds the wait for a server that accepts but never answers (a
#: server that answers with bytes that are not Dask's is refused at once, whatever the timeout).
CONNECT_TIMEOUT = 5.0

#: Address schemes of --scheduler (Dask's TCP transport, plain or with TLS from the Dask configuration).
SCHEDULER_SCHEMES = ("tcp", "tls")


class ClusterError(InputError):
    """A cluster that cannot be used (a malformed address, a server that is not a reachable Dask scheduler,
    Dask not installed): one line, exit 2."""


def _one_line(text, limit: int = 300) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit] + "..."


def _describe(exc: BaseException) -> str:
    """``TypeName: message`` of an exception (its str() may itself fail)."""
    try:
        message = str(exc)
    except Exception:  # noqa: BLE001 - e.g. an int too large to print
        message = "(unprintable)"
    return f"{type(exc).__name__}: {message}"


def _needs_dask(alternative: str) -> ClusterError:
    return ClusterError("running on Dask needs dask[distributed]: pip install 'certify[law]' "
                        f"(from a checkout: pip install '.[law]'), or {alternative}")


def scheduler_address(text) -> str:
    """``text`` as the Dask address ``SCHEME://HOST:PORT`` (SCHEME tcp or tls, tcp when none is given; an IPv6
    host in brackets; PORT 1..65535), decided from the text alone, at once; ClusterError (one line) otherwise."""
    if not isinstance(text, str) or not text.strip():
        raise ClusterError("--scheduler needs an address such as tcp://HOST:8786")
    given = text.strip()
    scheme, separator, location = given.rpartition("://")
    scheme = scheme if separator else "tcp"
    shown = _one_line(repr(given), 120)
    if scheme not in SCHEDULER_SCHEMES:
        raise ClusterError(f"--scheduler {shown}: unsupported scheme {_one_line(repr(scheme), 40)} "
                           f"(use tcp://HOST:PORT, or tls://HOST:PORT with TLS in the Dask configuration)")
    host, colon, port = location.rpartition(":")
    if not colon or not port:
        raise ClusterError(f"--scheduler {shown}: no port number (give SCHEME://HOST:PORT, e.g. tcp://HOST:8786)")
    if not re.fullmatch(r"[0-9]{1,5}", port):
        raise ClusterError(f"--scheduler {shown}: {_one_line(repr(port), 40)} is not a port number (1..65535)")
    if not 1 <= int(port) <= 65535:
        raise ClusterError(f"--scheduler {shown}: the port must be 1..65535, got {int(port)}")
    bracketed = host.startswith("[") and host.endswith("]") and len(host) > 2 and "]" not in host[1:-1]
    if not host or ("[" in host or "]" in host or ":" in host) and not bracketed \
            or not re.fullmatch(r"[\x21-\x7e]+", host):
        raise ClusterError(f"--scheduler {shown}: {_one_line(repr(host), 60)} is not a host name or address "
                           "(an IPv6 address goes in brackets: tcp://[::1]:8786)")
    return f"{scheme}://{host}:{int(port)}"


def probe_scheduler(address: str, timeout: float, alternative: str = "give --jobs 1") -> None:
    """Return once the server at ``address`` (from :func:`scheduler_address`) has completed Dask's handshake
    and answered the ``identity`` request as a Scheduler, within ``timeout`` seconds of wall time (plus one
    second for the probe's thread to end); else ClusterError, one line:

    - nothing listening, or no answer within ``timeout`` (a server that accepts and never speaks): "cannot
      reach the Dask scheduler";
    - a server whose bytes are not Dask's protocol (an HTTP server, garbage: read as a frame length they ask
      for exabytes, which fails at once) or a Dask worker: "is not a Dask scheduler", at once.

    The probe runs in its own thread and event loop, so it works beside a running loop (a notebook), and
    every exception the server's bytes cause in distributed (MemoryError included) becomes that line.
    ``alternative`` ends the line said when Dask is not installed (what to do instead)."""
    import asyncio
    import threading

    try:
        from distributed.comm import connect as dask_connect
        from distributed.security import Security
    except ImportError:
        raise _needs_dask(alternative) from None

    async def identity():
        comm = await dask_connect(address, timeout=timeout, **Security().get_connection_args("client"))
        try:
            await comm.write({"op": "identity", "reply": True})
            return await comm.read()
        finally:
            comm.abort()

    result: dict = {}

    def probe():
        try:
            result["identity"] = asyncio.run(asyncio.wait_for(identity(), timeout))
        except BaseException as exc:  # noqa: BLE001 - whatever the server's bytes caused, reported below
            result["error"] = exc

    thread = threading.Thread(target=probe, name="certify-probe", daemon=True)
    thread.start()
    thread.join(timeout + 1.0)
    error = result.get("error")
    if thread.is_alive() or isinstance(error, (TimeoutError, asyncio.TimeoutError)):
        raise ClusterError(f"cannot reach the Dask scheduler {address}: no answer within {timeout:g} s (nothing "
                           "there, or a server that accepted the connection and never spoke Dask's protocol)")
    if isinstance(error, OSError):
        raise ClusterError(f"cannot reach the Dask scheduler {address}: {_one_line(_describe(error), 200)}")
    if error is not None:
        raise ClusterError(f"{address} is not a Dask scheduler: its answer to Dask's handshake is not Dask's "
                           f"protocol ({_one_line(_describe(error), 160)})")
    answer = result.get("identity")
    kind = answer.get("type") if isinstance(answer, dict) else None
    if kind != "Scheduler":
        raise ClusterError(f"{address} is not a Dask scheduler: it answered as {_one_line(repr(kind), 40)}")


def connect(scheduler: str | None, jobs: int, timeout: float, alternative: str = "give --jobs 1"):
    """(client, cluster or None): a Client of the scheduler at ``scheduler`` (an address from
    :func:`scheduler_address`, probed first, see :func:`probe_scheduler`) or, for None, of a new LocalCluster
    of ``jobs`` single-threaded worker processes (close the cluster after the client). ClusterError (one line)
    if Dask is missing or the scheduler cannot be reached; ``alternative`` is said with the first."""
    import logging
    import warnings

    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise _needs_dask(alternative) from None
    if scheduler is not None:
        probe_scheduler(scheduler, timeout, alternative)
        try:
            return Client(scheduler, timeout=f"{timeout}s", set_as_default=False), None
        except Exception as exc:  # noqa: BLE001 - the scheduler went away or changed since the probe
            raise ClusterError(f"cannot reach the Dask scheduler {scheduler}: {_one_line(_describe(exc), 200)}") \
                from None
    with warnings.catch_warnings():  # the scheduler's HTTP server moving off a busy port 8787 is no news here
        warnings.filterwarnings("ignore", message=r"Port \d+ is already in use", category=UserWarning)
        cluster = LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True, dashboard_address=None,
                               silence_logs=logging.ERROR)
    try:
        return Client(cluster, set_as_default=False), cluster
    except BaseException:
        cluster.close()
        raise


#: BLAS thread variables set to 1 (unless the user set them) before numpy loads: multi-threaded BLAS rounds
#: differently in the last bits, and Dask's worker processes run single-threaded (distributed sets the same
#: variables), so a law sample computed in-process gives the same bits as on a worker.
SINGLE_THREADED = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def single_threaded_blas() -> bool:
    """Set :data:`SINGLE_THREADED` to 1 where unset, if numpy is not loaded yet (then BLAS reads them when it
    loads). Returns whether that was in time: False when numpy was already imported (its BLAS keeps its threads)."""
    import os
    import sys

    if "numpy" in sys.modules:
        return False
    for name in SINGLE_THREADED:
        os.environ.setdefault(name, "1")
    return True

