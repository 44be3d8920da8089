"""The hardware manager the sandbox adds through IPA's own plugin point
(ironic_python_agent.hardware_managers). It outranks the generic manager, so IPA's dispatch asks
it first; everything it does not override is the generic manager's real code. It narrows what
IPA sees to the test's loop devices and the network namespace's NICs, and refuses any device
outside them in every path that writes (install device, erase, write_image)."""
import json
import os
import sys

from ironic_python_agent import errors
from ironic_python_agent import hardware

from ironhook_ipa_sandbox import config
from ironhook_ipa_sandbox import guard

guard.install()


def _check(path):
    if path not in config.disk_paths():
        raise errors.ProtectedDeviceError(path, 'outside the Ironhook IPA sandbox')


def _size_bytes(path):
    with open(f'/sys/block/{os.path.basename(path)}/size', encoding='ascii') as handle:
        return int(handle.read().strip()) * 512


def _as_block_device(disk):
    """A loop device as the disk the emulated BMC reports (serial, model, vendor), so root
    device hints written against the BMC's inventory select it."""
    return hardware.BlockDevice(
        name=disk['path'], model=disk.get('model', 'Ironhook sandbox disk'), size=_size_bytes(disk['path']),
        rotational=bool(disk.get('rotational', False)), wwn=disk.get('wwn'), serial=disk.get('serial'),
        vendor=disk.get('vendor'), by_path=disk.get('byPath'), uuid=None, partuuid=None, logical_sectors=512,
        physical_sectors=512, tran=None)


class SandboxHardwareManager(hardware.GenericHardwareManager):
    HARDWARE_MANAGER_NAME = 'ironhook_sandbox'
    HARDWARE_MANAGER_VERSION = '1.0'

    def evaluate_hardware_support(self):
        return hardware.HardwareSupport.SERVICE_PROVIDER + 1

    def initialize(self):
        # The generic manager's initialize() scans iSCSI, md RAID, IPMI modules and multipath of
        # this machine; the sandbox has none of them, so only wait for the loop devices.
        self.wait_for_disks()

    def list_block_devices(self, include_partitions=False, all_serial_and_wwn=False):
        devices = [_as_block_device(disk) for disk in config.disks()]
        if include_partitions:
            parts = hardware.list_all_block_devices(block_type='part', ignore_raid=True)
            devices.extend(part for part in parts if any(part.name.startswith(path + 'p') for path in config.disk_paths()))
        return devices

    def list_network_interfaces(self):
        # Only the namespace's NICs named in the sandbox config (veth ends carry no PCI device,
        # which the generic listing requires); their details come from IPA's own code.
        present = set(os.listdir('/sys/class/net'))
        return [self.get_interface_info(name) for name in config.nic_names() if name in present]

    def get_boot_info(self):
        # A ramdisk learns its PXE interface from BOOTIF= on the kernel command line; the sandbox
        # has no such command line, so the boot MAC comes from its configuration.
        info = super().get_boot_info()
        return hardware.BootInfo(current_boot_mode=info.current_boot_mode, pxe_interface=config.load().get('bootMAC'))

    def get_bmc_address(self):
        return config.load().get('bmcAddress', '0.0.0.0')

    def get_bmc_v6address(self):
        return '::/0'

    def get_bmc_mac(self):
        raise errors.IncompatibleHardwareMethodError()

    def get_system_vendor_info(self):
        vendor = config.load().get('systemVendor', {})
        firmware = hardware.SystemFirmware(vendor=vendor.get('biosVendor', ''), version=vendor.get('biosVersion', ''),
                                           build_date=vendor.get('biosDate', ''))
        return hardware.SystemVendorInfo(product_name=vendor.get('productName', ''),
                                         serial_number=vendor.get('serialNumber', ''),
                                         manufacturer=vendor.get('manufacturer', ''), firmware=firmware)

    def get_os_install_device(self, permit_refresh=False):
        path = super().get_os_install_device(permit_refresh=permit_refresh)
        _check(path)
        return path

    def erase_block_device(self, node, block_device):
        _check(block_device.name)
        return super().erase_block_device(node, block_device)

    def erase_devices_metadata(self, node, ports):
        for device in self.list_block_devices():
            _check(device.name)
        return super().erase_devices_metadata(node, ports)

    def erase_devices_express(self, node, ports):
        for device in self.list_block_devices():
            _check(device.name)
        return super().erase_devices_express(node, ports)

    def write_image(self, node, ports, image_info, configdrive=None):
        _check(self.get_os_install_device())
        return super().write_image(node, ports, image_info, configdrive=configdrive)

    def filter_device(self, device):
        if isinstance(device, hardware.BlockDevice) and not any(
                device.name == path or device.name.startswith(path + 'p') for path in config.disk_paths()):
            return None
        return device


def shutdown_requested(command):
    """IPA's poweroff/reboot, told to the launcher instead of done to this machine: the launcher
    powers the emulated host off (or cycles it) through the emulated BMC."""
    sys.stderr.write('IRONHOOK_SANDBOX_EVENT ' + json.dumps({'event': command}) + '\n')
    sys.stderr.flush()
