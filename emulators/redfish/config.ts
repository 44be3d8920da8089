// The emulator's YAML config file (docs/redfish.md, "Config file"). Credentials live here, never
// on the command line. Validation is strict: an unknown key or a wrong type is an error with its
// path, so a typo does not silently give a default.
import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';
import { normalizeMAC } from '../../domain/bmc/index.js';
import { isPersonalityName } from './personalities/index.js';
import type { EmulatorOptions } from './server.js';
import type { FaultConfig, SystemConfig } from './types.js';

type Plain = Record<string, unknown>;

class ConfigError extends Error {}

function fail(path: string, message: string): never {
  throw new ConfigError(`${path}: ${message}`);
}

function plain(value: unknown, path: string): Plain {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    fail(path, 'must be a mapping');
  }
  return value as Plain;
}

function onlyKeys(value: Plain, allowed: readonly string[], path: string): void {
  const unknown = Object.keys(value).filter((key) => !allowed.includes(key));
  if (unknown.length > 0) {
    fail(path, `unknown key(s) ${unknown.join(', ')} (allowed: ${allowed.join(', ')})`);
  }
}

function optionalString(value: Plain, key: string, path: string): string | undefined {
  const field = value[key];
  if (field !== undefined && (typeof field !== 'string' || field === '')) {
    fail(`${path}.${key}`, 'must be a non-empty string');
  }
  return field;
}

function optionalNumber(value: Plain, key: string, path: string): number | undefined {
  const field = value[key];
  if (field !== undefined && (typeof field !== 'number' || !Number.isFinite(field) || field < 0)) {
    fail(`${path}.${key}`, 'must be a number ≥ 0');
  }
  return field;
}

function optionalBoolean(value: Plain, key: string, path: string): boolean | undefined {
  const field = value[key];
  if (field !== undefined && typeof field !== 'boolean') {
    fail(`${path}.${key}`, 'must be true or false');
  }
  return field;
}

function delay(value: unknown, path: string): number | [number, number] | undefined {
  if (value === undefined || typeof value === 'number') {
    return value;
  }
  if (Array.isArray(value) && value.length === 2 && value.every((entry) => typeof entry === 'number' && entry >= 0)) {
    return [value[0] as number, value[1] as number];
  }
  return fail(path, 'must be milliseconds or [min, max]');
}

const FAULT_KEYS = ['unreachable', 'slowMs', 'serverError', 'dropRequests', 'powerNeverSettles', 'lockoutAfter', 'lockoutMs'];

function faults(value: unknown, path: string): FaultConfig | undefined {
  if (value === undefined) {
    return undefined;
  }
  const raw = plain(value, path);
  onlyKeys(raw, FAULT_KEYS, path);
  optionalBoolean(raw, 'unreachable', path);
  optionalBoolean(raw, 'powerNeverSettles', path);
  for (const key of ['slowMs', 'dropRequests', 'lockoutAfter', 'lockoutMs']) {
    optionalNumber(raw, key, path);
  }
  if (raw.serverError !== undefined) {
    onlyKeys(plain(raw.serverError, `${path}.serverError`), ['status', 'count', 'retryAfterSeconds'], `${path}.serverError`);
  }
  return raw;
}

function macs(value: unknown, path: string): string[] | undefined {
  if (value === undefined) {
    return undefined;
  }
  if (!Array.isArray(value)) {
    return fail(path, 'must be a list of MAC addresses');
  }
  return value.map((entry, index) => (typeof entry === 'string' ? normalizeMAC(entry) : undefined) ?? fail(`${path}[${index}]`, 'is not a MAC address'));
}

const SYSTEM_KEYS = [
  'id',
  'name',
  'username',
  'password',
  'personality',
  'powerState',
  'macs',
  'nics',
  'cpu',
  'memoryGiB',
  'disks',
  'manufacturer',
  'model',
  'serialNumber',
  'uuid',
  'biosVersion',
  'firmwareVersion',
  'virtualMedia',
  'etag',
  'requireIfMatch',
  'continuousBoot',
  'secureBoot',
  'secureBootEnabled',
  'secureBootAppliesAtBoot',
  'powerDelayMs',
  'transitionalStates',
  'asyncTasks',
  'faults',
];

function requiredString(raw: Plain, key: string, path: string): string {
  return optionalString(raw, key, path) ?? fail(`${path}.${key}`, 'is required');
}

function checkEnums(raw: Plain, path: string): void {
  if (raw.personality !== undefined && (typeof raw.personality !== 'string' || !isPersonalityName(raw.personality))) {
    fail(`${path}.personality`, 'must be one of generic, dell, hpe, supermicro, lenovo');
  }
  if (raw.powerState !== undefined && raw.powerState !== 'On' && raw.powerState !== 'Off') {
    fail(`${path}.powerState`, 'must be On or Off');
  }
  if (raw.etag !== undefined && (typeof raw.etag !== 'string' || !['strong', 'weak', 'mismatch', 'none'].includes(raw.etag))) {
    fail(`${path}.etag`, 'must be strong, weak, mismatch or none');
  }
}

function system(value: unknown, index: number): SystemConfig {
  const path = `systems[${index}]`;
  const raw = plain(value, path);
  onlyKeys(raw, SYSTEM_KEYS, path);
  const id = requiredString(raw, 'id', path);
  if (!/^[A-Za-z0-9._-]+$/.test(id)) {
    fail(`${path}.id`, 'may contain only letters, digits, ".", "_" and "-"');
  }
  requiredString(raw, 'username', path);
  requiredString(raw, 'password', path);
  checkEnums(raw, path);
  optionalNumber(raw, 'memoryGiB', path);
  for (const key of ['secureBoot', 'secureBootEnabled', 'secureBootAppliesAtBoot']) {
    optionalBoolean(raw, key, path);
  }
  return {
    ...(raw as unknown as SystemConfig),
    macs: macs(raw.macs, `${path}.macs`),
    powerDelayMs: delay(raw.powerDelayMs, `${path}.powerDelayMs`),
    faults: faults(raw.faults, `${path}.faults`),
  };
}

const TOP_KEYS = ['port', 'http', 'notifyURL', 'powerDelayMs', 'sessionService', 'maxSessions', 'portPerSystem', 'systems'];

/** Parses and checks a config document; throws an Error naming the offending path. */
export function parseEmulatorConfig(text: string): EmulatorOptions {
  const raw = plain(parse(text) as unknown, 'config');
  onlyKeys(raw, TOP_KEYS, 'config');
  if (!Array.isArray(raw.systems) || raw.systems.length === 0) {
    fail('config.systems', 'must list at least one system');
  }
  const systems = raw.systems.map(system);
  const ids = systems.map((entry) => entry.id);
  const duplicate = ids.find((id, index) => ids.indexOf(id) !== index);
  if (duplicate !== undefined) {
    fail('config.systems', `duplicate id '${duplicate}'`);
  }
  const notifyURL = optionalString(raw, 'notifyURL', 'config');
  const options: EmulatorOptions = {
    systems,
    port: optionalNumber(raw, 'port', 'config'),
    http: optionalBoolean(raw, 'http', 'config'),
    notifyURL: notifyURL === undefined ? undefined : new URL(notifyURL).toString(),
    powerDelayMs: delay(raw.powerDelayMs, 'config.powerDelayMs'),
    sessionService: optionalBoolean(raw, 'sessionService', 'config'),
    maxSessions: optionalNumber(raw, 'maxSessions', 'config'),
    portPerSystem: optionalBoolean(raw, 'portPerSystem', 'config'),
  };
  return Object.fromEntries(Object.entries(options).filter(([, field]) => field !== undefined)) as unknown as EmulatorOptions;
}

export async function loadEmulatorConfig(file: string): Promise<EmulatorOptions> {
  return parseEmulatorConfig(await readFile(file, 'utf8'));
}
