"""A Python audit hook (PEP 578) that refuses, before it happens, every write IPA could make
outside the sandbox: opening a device node or a kernel control file for writing, or running a
tool that names a block device other than the test's loop devices or their partitions, or a
tool that acts on the machine itself (power, firmware, kernel modules). Every write-capable
action on a device is logged to the audit log, allowed or not, so the test can check the
guard saw the writes it should and refused nothing it needed."""
import errno
import json
import os
import re
import shlex
import sys
import threading

from ironhook_ipa_sandbox import config

# Device nodes anyone may write (IPA writes zeros from /dev/zero into the disk, not to it).
HARMLESS_DEVICES = ('/dev/null', '/dev/zero', '/dev/full', '/dev/random', '/dev/urandom', '/dev/tty')
# Tools that act on the machine rather than on a disk: never run them in the sandbox.
REFUSED_TOOLS = frozenset((
    'poweroff', 'reboot', 'shutdown', 'halt', 'systemctl', 'efibootmgr', 'hwclock', 'ntpdate',
    'chronyd', 'modprobe', 'insmod', 'rmmod', 'mdadm', 'ipmitool', 'iscsistart', 'nvme',
    'hdparm', 'multipathd', 'multipath', 'dmsetup', 'vgchange', 'vgremove', 'pvremove', 'lvremove',
))
# Tools that only read, whatever device they name.
READ_ONLY_TOOLS = frozenset((
    'lsblk', 'blkid', 'udevadm', 'lscpu', 'lshw', 'dmidecode', 'ip', 'findmnt', 'cat', 'stat',
    'lsusb', 'lspci', 'biosdevname', 'ethtool', 'smartctl', 'file', 'uname', 'df', 'ls',
))
DEVICE_PATTERN = re.compile(r'/dev/[A-Za-z0-9_./:-]+')
_lock = threading.Lock()
_installed = False


def _record(entry):
    line = json.dumps(entry, sort_keys=True) + '\n'
    with _lock:
        with open(config.audit_log(), 'a', encoding='utf-8') as handle:
            handle.write(line)


def _allowed_device(path):
    """A sandbox loop device or one of its partitions (/dev/loop3, /dev/loop3p1)."""
    real = os.path.realpath(path)
    for disk in config.disk_paths():
        if real == disk or re.fullmatch(re.escape(disk) + r'p[0-9]+', real):
            return True
    return real in HARMLESS_DEVICES or real.startswith('/dev/pts/') or real.startswith('/dev/fd/')


def _write_flags(mode, flags):
    if isinstance(mode, str) and any(char in mode for char in 'wax+'):
        return True
    return isinstance(flags, int) and (flags & os.O_ACCMODE) != os.O_RDONLY


def _refuse(kind, detail, absent=False):
    """Refuses before the action happens. A machine tool is refused as if the ramdisk lacked it
    (FileNotFoundError, which IPA handles where a tool is optional); a device write as denied."""
    _record({'event': kind, 'detail': detail, 'allowed': False, 'refusal': 'absent' if absent else 'denied'})
    if absent:
        raise FileNotFoundError(errno.ENOENT, f'not in the ironhook IPA sandbox: {detail}')
    raise PermissionError(errno.EPERM, f'ironhook IPA sandbox refused {kind}: {detail}')


def _on_open(path, mode, flags):
    if not isinstance(path, (str, bytes)) or not _write_flags(mode, flags):
        return
    path = os.fsdecode(path)
    if path.startswith('/dev/'):
        if not _allowed_device(path):
            _refuse('open-for-write', path)
        if not os.path.realpath(path) in HARMLESS_DEVICES:
            _record({'event': 'open-for-write', 'detail': os.path.realpath(path), 'allowed': True})
    elif path.startswith(('/proc/sysrq-trigger', '/sys/firmware', '/proc/sys/', '/sys/power')):
        _refuse('open-for-write', path)


def _argv_of(args):
    if isinstance(args, (str, bytes)):
        return shlex.split(os.fsdecode(args))
    return [os.fsdecode(arg) if isinstance(arg, (str, bytes)) else str(arg) for arg in args or []]


def _check_command(argv):
    if not argv:
        return
    tool = os.path.basename(argv[0])
    if tool in ('sh', 'bash') and '-c' in argv:
        script = argv[argv.index('-c') + 1] if argv.index('-c') + 1 < len(argv) else ''
        if 'sysrq' in script:
            _refuse('exec', script)
        for command in re.split(r'[;&|]+', script):
            _check_command(shlex.split(command))
        return
    if tool in REFUSED_TOOLS:
        _refuse('exec', ' '.join(argv), absent=True)
    named = [match for arg in argv[1:] for match in DEVICE_PATTERN.findall(arg)]
    devices = [device for device in named if os.path.realpath(device) not in HARMLESS_DEVICES]
    if tool in READ_ONLY_TOOLS or not devices:
        return
    for device in devices:
        if not _allowed_device(device):
            _refuse('exec', ' '.join(argv))
    _record({'event': 'exec', 'detail': ' '.join(argv), 'devices': sorted(set(devices)), 'allowed': True})


def _hook(event, args):
    if event == 'open':
        _on_open(*args[:3])
    elif event == 'subprocess.Popen':
        _check_command(_argv_of(args[1]) or _argv_of([args[0]]))
    elif event == 'os.system':
        _check_command(['sh', '-c', os.fsdecode(args[0])])
    elif event in ('os.exec', 'os.posix_spawn'):
        _check_command(_argv_of(args[1]))


def install():
    """Installs the hook once; audit hooks cannot be removed, so nothing can turn it off later."""
    global _installed
    if not _installed:
        config.load()
        sys.addaudithook(_hook)
        _installed = True
