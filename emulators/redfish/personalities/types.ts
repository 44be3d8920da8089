// A vendor personality: what the emulated BMC says it is and which of that vendor's quirks it
// has. Rows are data; the request handlers read the fields.
import type { ETagMode, PersonalityName } from '../types.js';

export interface MediaDeviceTemplate {
  readonly id: string;
  readonly name: string;
  readonly mediaTypes: readonly string[];
}

export interface Personality {
  readonly name: PersonalityName;
  readonly manufacturer: string;
  readonly model: string;
  readonly managerModel: string;
  readonly firmwareVersion: string;
  readonly biosVersion: string;
  readonly resetTypes: readonly string[];
  /** List ResetType values through @Redfish.ActionInfo instead of inline AllowableValues. */
  readonly resetActionInfo: boolean;
  readonly bootTargets: readonly string[];
  readonly bootModes: readonly string[];
  /** Where the VirtualMedia collection is linked from. */
  readonly virtualMediaUnder: 'system' | 'manager';
  readonly mediaDevices: readonly MediaDeviceTemplate[];
  /** false: no InsertMedia/EjectMedia actions, PATCH only (Lenovo XCC). */
  readonly virtualMediaActions: boolean;
  /** InsertMedia rejects Inserted/WriteProtected parameters (Supermicro). */
  readonly insertRejectsFlags: boolean;
  /** InsertMedia requires TransferProtocolType (Supermicro). */
  readonly insertNeedsTransferProtocol: boolean;
  /** EjectMedia without a JSON body is refused with 400 (HPE iLO). */
  readonly ejectNeedsBody: boolean;
  /** A Boot PATCH without BootSourceOverrideEnabled is refused (Supermicro). */
  readonly bootNeedsEnabled: boolean;
  /** The boot mode falls back to Legacy after a boot-device change that does not set it (Supermicro). */
  readonly bootModeResetsToLegacy: boolean;
  readonly etag: ETagMode;
}
