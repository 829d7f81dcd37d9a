"""The kernel manager of the runners (reproduce, refresh): no interrupt of an idle kernel at shutdown.

jupyter_client's ``shutdown_kernel`` sends the kernel SIGINT before its shutdown request (to stop a busy
kernel).  At the end of a run the kernel is idle; when the signal lands while it handles a message, ipykernel
logs ``[IPKernelApp] ERROR | KeyboardInterrupt caught in kernel.`` on the runner's stderr, so a successful
``make figures`` printed an error line now and then.  Here the shutdown skips that interrupt: the shutdown
request stops an idle kernel, and jupyter_client still terminates, then kills, one that does not stop in
time.  A cell that hangs is interrupted by nbclient's own timeout handling, which this does not touch.
"""

from __future__ import annotations

from jupyter_client import AsyncKernelManager


class QuietShutdownKernelManager(AsyncKernelManager):
    """``AsyncKernelManager`` whose shutdown does not interrupt the kernel first (module docstring)."""

    async def _async_interrupt_kernel(self) -> None:
        if self.shutting_down:
            return
        await super()._async_interrupt_kernel()
