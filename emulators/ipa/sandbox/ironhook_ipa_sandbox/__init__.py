"""Ironhook's test sandbox for ironic-python-agent. Never install it on a real deploy ramdisk."""
