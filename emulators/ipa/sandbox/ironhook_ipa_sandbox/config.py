"""The sandbox's configuration: a JSON file named by IRONHOOK_IPA_SANDBOX, written by the
launcher (emulators/ipa/launcher.ts) for one emulated host."""
import json
import os

_CONFIG = None


def load():
    """The sandbox configuration; refuses to run without one, so IPA never sees the real machine."""
    global _CONFIG
    if _CONFIG is None:
        path = os.environ.get('IRONHOOK_IPA_SANDBOX')
        if not path:
            raise SystemExit('IRONHOOK_IPA_SANDBOX is not set: refusing to run IPA outside the sandbox')
        with open(path, encoding='utf-8') as handle:
            _CONFIG = json.load(handle)
    return _CONFIG


def disks():
    """[{path, serial, model, vendor, rotational, wwn}] — the loop devices IPA may use."""
    return load()['disks']


def disk_paths():
    return [disk['path'] for disk in disks()]


def nic_names():
    return [nic['name'] for nic in load()['nics']]


def audit_log():
    return load()['auditLog']
