"""python -m ironhook_ipa_sandbox --config-file …: IPA's own entry point with the guard installed
first and its shutdown command sent to the launcher."""
from ironhook_ipa_sandbox import guard

guard.install()

import os  # noqa: E402
import socket  # noqa: E402

from ironhook_ipa_sandbox import config  # noqa: E402


def _own_hostname():
    """The host's name, set only in a UTS namespace of its own (the launcher runs unshare --uts
    and records its own namespace as outerUTS): never this machine's."""
    outer = config.load().get('outerUTS')
    if outer and os.readlink('/proc/self/ns/uts') != outer:
        socket.sethostname(config.load().get('hostname', 'ironhook-sandbox'))


_own_hostname()

from ironic_python_agent.cmd import agent  # noqa: E402
from ironic_python_agent.extensions import standby  # noqa: E402

from ironhook_ipa_sandbox import manager  # noqa: E402


def _shutdown(self, command):
    if command not in ('reboot', 'poweroff'):
        raise standby.errors.InvalidCommandParamsError(f'Expected the command "poweroff" or "reboot" but received "{command}".')
    standby.hardware.dispatch_to_all_managers('full_sync')
    manager.shutdown_requested(command)


standby.StandbyExtension._run_shutdown_command = _shutdown
agent.run()
