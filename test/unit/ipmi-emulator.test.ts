// The ipmi_sim launcher's pure parts (emulators/ipmi/files.ts, state.ts): lan.conf and
// .emu rendering, the FRU encoding, the event log and how events fold into host state.
import { describe, expect, it } from 'vitest';
import { CHASSIS_SCRIPT, encodeFRU, renderEmu, renderLanConf } from '../../emulators/ipmi/files.js';
import type { LanConfInput } from '../../emulators/ipmi/files.js';
import { applyEvent, bootDeviceFromSimulator, parseEventLine, parseEventLog } from '../../emulators/ipmi/state.js';
import type { SimulatedHostState, SimulatorEvent } from '../../emulators/ipmi/state.js';

const LAN: LanConfInput = {
  name: 'sim',
  port: 9623,
  users: [{ username: 'admin', password: 'password', privilege: 'admin' }],
  scriptPath: '/tmp/ironhook-ipmisim-x/chassis-control.sh',
  stateDir: '/tmp/ironhook-ipmisim-x/state',
};

describe('renderLanConf', () => {
  it('binds 127.0.0.1 only, wires the chassis script and lists users from id 2', () => {
    const text = renderLanConf({ ...LAN, users: [...LAN.users, { username: 'viewer', password: 'pw', privilege: 'user' }] });
    expect(text).toContain('    addr 127.0.0.1 9623\n');
    expect(text).toContain('  chassis_control "/tmp/ironhook-ipmisim-x/chassis-control.sh /tmp/ironhook-ipmisim-x/state"\n');
    expect(text).toContain('  user 2 true "admin" "password" admin 10 md5\n');
    expect(text).toContain('  user 3 true "viewer" "pw" user 10 md5\n');
    expect(text.match(/addr /g)).toHaveLength(1);
  });

  const invalid: { name: string; input: Partial<LanConfInput>; message: RegExp }[] = [
    { name: 'password with a quote', input: { users: [{ username: 'admin', password: 'a"b', privilege: 'admin' }] }, message: /quotes/ },
    { name: 'password with a backslash', input: { users: [{ username: 'admin', password: 'a\\b', privilege: 'admin' }] }, message: /backslashes/ },
    { name: 'password with a newline', input: { users: [{ username: 'admin', password: 'a\nb', privilege: 'admin' }] }, message: /printable/ },
    { name: 'password over 20 bytes', input: { users: [{ username: 'admin', password: 'x'.repeat(21), privilege: 'admin' }] }, message: /20 bytes/ },
    { name: 'user name over 16 bytes', input: { users: [{ username: 'u'.repeat(17), password: 'pw', privilege: 'admin' }] }, message: /16 bytes/ },
    { name: 'empty user name', input: { users: [{ username: '', password: 'pw', privilege: 'admin' }] }, message: /needs a name/ },
    { name: 'no users', input: { users: [] }, message: /users/ },
    { name: 'script path with a space', input: { scriptPath: '/tmp/my dir/chassis.sh' }, message: /absolute/ },
    { name: 'relative state dir', input: { stateDir: 'state' }, message: /absolute/ },
  ];
  it.each(invalid)('rejects $name', ({ input, message }) => {
    expect(() => renderLanConf({ ...LAN, ...input })).toThrow(message);
  });
});

function sum(bytes: readonly number[]): number {
  return bytes.reduce((total, b) => total + b, 0) % 256;
}

describe('encodeFRU', () => {
  const fru = encodeFRU({ manufacturer: 'Ironhook Labs', productName: 'IH-1000', partNumber: 'PN-1', version: 'v1', serialNumber: 'SN-0042' });

  it('common header: version 1, product area at offset 8, zero checksum', () => {
    expect(fru.slice(0, 7)).toEqual([0x01, 0, 0, 0, 0x01, 0, 0]);
    expect(sum(fru.slice(0, 8))).toBe(0);
  });

  it('product area: length in 8-byte units, ASCII type/length fields, end marker, zero checksum', () => {
    const area = fru.slice(8);
    expect(area[0]).toBe(0x01);
    expect(area.length).toBe(area[1]! * 8);
    expect(sum(area)).toBe(0);
    expect(area[3]).toBe(0xc0 | 'Ironhook Labs'.length);
    expect(Buffer.from(area.slice(4, 4 + 13)).toString('latin1')).toBe('Ironhook Labs');
    expect(area).toContain(0xc1);
  });

  it('is the bytes ipmi_sim served as "Product Manufacturer : Ironhook Labs" (verified with fru print 0)', () => {
    expect(fru.map((b) => b.toString(16).padStart(2, '0')).join('')).toBe(
      '010000000100' + '00fe' + '010600cd49726f6e686f6f6b204c616273c749482d31303030c4504e2d31c27631c7534e2d30303432c0c0c1000000' + '36',
    );
  });

  it('rejects a field over 63 bytes', () => {
    expect(() => encodeFRU({ manufacturer: 'm'.repeat(64), productName: 'p', serialNumber: 's' })).toThrow(/63 bytes/);
  });

  it('renderEmu adds mc_add_fru_data only when asked', () => {
    expect(renderEmu(undefined)).not.toContain('mc_add_fru_data');
    expect(renderEmu({ manufacturer: 'M', productName: 'P', serialNumber: 'S' })).toMatch(/^mc_add_fru_data 0x20 0 \d+ data 0x01 /m);
    expect(renderEmu(undefined)).toMatch(/^mc_enable 0x20$/m);
  });
});

describe('chassis script text', () => {
  it('is a POSIX shell script that honours the fail flag and logs every set', () => {
    expect(CHASSIS_SCRIPT.startsWith('#!/bin/sh\n')).toBe(true);
    expect(CHASSIS_SCRIPT).toContain('if [ -f "$d/fail" ]; then');
    expect(CHASSIS_SCRIPT).toContain('echo "$(date +%s.%N) set $item $value" >> "$d/events.log"');
  });
});

describe('event log', () => {
  const rows: { name: string; line: string; expected: SimulatorEvent | undefined }[] = [
    { name: 'power on', line: '1795967146.302103639 set power 1', expected: { at: 1795967146302, verb: 'set', item: 'power', value: '1' } },
    { name: 'boot device', line: '1795967146.610906570 set boot pxe', expected: { at: 1795967146610, verb: 'set', item: 'boot', value: 'pxe' } },
    { name: 'identify with two words', line: '1795967146.1 set identify 5 0', expected: { at: 1795967146100, verb: 'set', item: 'identify', value: '5 0' } },
    { name: 'refused while failing', line: '1795967146.5 fail get power', expected: { at: 1795967146500, verb: 'fail', item: 'get', value: 'power' } },
    { name: 'whole seconds', line: '1795967146 set reset 1', expected: { at: 1795967146000, verb: 'set', item: 'reset', value: '1' } },
    { name: 'garbage', line: 'hello', expected: undefined },
    { name: 'empty', line: '', expected: undefined },
  ];
  it.each(rows)('$name', ({ line, expected }) => {
    expect(parseEventLine(line)).toEqual(expected);
  });

  it('parses a log, skipping a partial last line', () => {
    expect(parseEventLog('1.0 set power 1\n2.0 set boot cdrom\n3.0 se')).toHaveLength(2);
  });

  const names = [
    { name: 'none', expected: 'none' },
    { name: 'pxe', expected: 'pxe' },
    { name: 'default', expected: 'disk' },
    { name: 'cdrom', expected: 'cdrom' },
    { name: 'bios', expected: 'bios' },
    { name: 'floppy', expected: 'other' },
  ] as const;
  it.each(names)('boot name $name → $expected', ({ name, expected }) => {
    expect(bootDeviceFromSimulator(name)).toBe(expected);
  });
});

describe('applyEvent: host state and boots', () => {
  const off: SimulatedHostState = { power: 'off', bootDevice: 'pxe' };
  const on: SimulatedHostState = { power: 'on', bootDevice: 'pxe' };
  const event = (item: string, value: string): SimulatorEvent => ({ at: 1000, verb: 'set', item, value });
  const rows: { name: string; state: SimulatedHostState; event: SimulatorEvent; next: SimulatedHostState; boot?: 'power-on' | 'reset' }[] = [
    { name: 'power on from off boots from the boot device', state: off, event: event('power', '1'), next: on, boot: 'power-on' },
    { name: 'power on while on does not boot', state: on, event: event('power', '1'), next: on },
    { name: 'power off', state: on, event: event('power', '0'), next: off },
    { name: 'soft off (shutdown)', state: on, event: event('shutdown', '1'), next: off },
    { name: 'reset while on boots', state: on, event: event('reset', '1'), next: on, boot: 'reset' },
    { name: 'reset while off does nothing', state: off, event: event('reset', '1'), next: off },
    { name: 'boot device change', state: off, event: event('boot', 'default'), next: { power: 'off', bootDevice: 'disk' } },
    { name: 'identify changes nothing', state: on, event: event('identify', '5 0'), next: on },
    { name: 'a refused request changes nothing', state: off, event: { at: 1000, verb: 'fail', item: 'set', value: 'power 1' }, next: off },
  ];
  it.each(rows)('$name', ({ state, event: input, next, boot }) => {
    const result = applyEvent(state, input);
    expect(result.state).toEqual(next);
    expect(result.boot?.cause).toBe(boot);
    if (boot !== undefined) {
      expect(result.boot).toEqual({ at: 1000, cause: boot, bootDevice: 'pxe' });
    }
  });
});
