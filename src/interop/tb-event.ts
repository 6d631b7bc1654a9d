/**
 * TensorBoard's Event and Summary messages (tensorflow/core/util/event.proto,
 * framework/summary.proto, tensor.proto), only the fields a scalar needs, decoded and encoded with
 * protobufjs. Unknown fields (graphs, images, histograms, …) are skipped by the decoder, so any
 * event file reads. A scalar comes either as `simple_value` (float) or, from tf.summary in TF 2
 * and newer writers, as a rank-0 tensor of float, double or int. Pure: no Node, no DOM.
 */
import protobuf from 'protobufjs/light';

/** The message subset, as a protobufjs JSON descriptor (field numbers as in the .proto files). */
const SCHEMA = {
  nested: {
    tensorboard: {
      nested: {
        Event: {
          fields: {
            wallTime: { type: 'double', id: 1 },
            step: { type: 'int64', id: 2 },
            fileVersion: { type: 'string', id: 3 },
            summary: { type: 'Summary', id: 5 },
          },
        },
        Summary: {
          fields: { value: { rule: 'repeated', type: 'Value', id: 1 } },
          nested: {
            Value: {
              fields: {
                tag: { type: 'string', id: 1 },
                simpleValue: { type: 'float', id: 2 },
                tensor: { type: 'TensorProto', id: 8 },
                metadata: { type: 'SummaryMetadata', id: 9 },
              },
            },
          },
        },
        SummaryMetadata: {
          fields: { pluginData: { type: 'PluginData', id: 1 } },
          nested: { PluginData: { fields: { pluginName: { type: 'string', id: 1 }, content: { type: 'bytes', id: 2 } } } },
        },
        TensorProto: {
          fields: {
            dtype: { type: 'int32', id: 1 },
            tensorContent: { type: 'bytes', id: 4 },
            floatVal: { rule: 'repeated', type: 'float', id: 5 },
            doubleVal: { rule: 'repeated', type: 'double', id: 6 },
            intVal: { rule: 'repeated', type: 'int32', id: 7 },
            int64Val: { rule: 'repeated', type: 'int64', id: 10 },
          },
        },
      },
    },
  },
};

const root = protobuf.Root.fromJSON(SCHEMA);
const EventType = root.lookupType('tensorboard.Event');

/** tensorflow.DataType values a scalar may have. */
const DT = { float: 1, double: 2, int32: 3, int64: 9 } as const;

/** The first line of every event file (TensorBoard checks it). */
export const FILE_VERSION = 'brain.Event:2';

type Int64 = number | { toNumber(): number };
interface TensorMsg {
  dtype?: number;
  tensorContent?: Uint8Array;
  floatVal?: number[];
  doubleVal?: number[];
  intVal?: number[];
  int64Val?: Int64[];
}
interface ValueMsg {
  tag?: string;
  simpleValue?: number;
  tensor?: TensorMsg;
}
interface EventMsg {
  wallTime?: number;
  step?: Int64;
  fileVersion?: string;
  summary?: { value?: ValueMsg[] };
}

export interface ScalarEvent {
  step: number;
  wallTime: number;
  /** tag → value; float32 values are exact as decoded (no rounding added). */
  scalars: [string, number][];
}

const toNumber = (x: Int64 | undefined): number => (x === undefined ? 0 : typeof x === 'number' ? x : x.toNumber());

/** A rank-0 tensor's value, or null for other dtypes and shapes. */
function tensorScalar(t: TensorMsg): number | null {
  const content = t.tensorContent;
  const raw = content && content.length > 0 ? new DataView(content.buffer, content.byteOffset, content.byteLength) : null;
  switch (t.dtype) {
    case DT.float:
      return raw?.byteLength === 4 ? raw.getFloat32(0, true) : t.floatVal?.length === 1 ? t.floatVal[0] : null;
    case DT.double:
      return raw?.byteLength === 8 ? raw.getFloat64(0, true) : t.doubleVal?.length === 1 ? t.doubleVal[0] : null;
    case DT.int32:
      return raw?.byteLength === 4 ? raw.getInt32(0, true) : t.intVal?.length === 1 ? t.intVal[0] : null;
    case DT.int64:
      return raw?.byteLength === 8 ? Number(raw.getBigInt64(0, true)) : t.int64Val?.length === 1 ? toNumber(t.int64Val[0]) : null;
    default:
      return null;
  }
}

/**
 * Decodes one record's Event; returns its scalars (empty for a file-version or non-scalar event).
 * Throws on bytes that are not an Event message (the caller counts it as damaged).
 */
export function decodeEvent(data: Uint8Array): ScalarEvent {
  const e = EventType.decode(data) as unknown as EventMsg;
  const scalars: [string, number][] = [];
  for (const v of e.summary?.value ?? []) {
    if (!v.tag) continue;
    // Decoded messages carry defaults on their prototype: only own properties were on the wire.
    if (Object.hasOwn(v, 'simpleValue')) scalars.push([v.tag, v.simpleValue as number]);
    else if (Object.hasOwn(v, 'tensor') && v.tensor) {
      const x = tensorScalar(v.tensor);
      if (x !== null) scalars.push([v.tag, x]);
    }
  }
  return { step: toNumber(e.step), wallTime: e.wallTime ?? 0, scalars };
}

/** The event every file starts with. */
export function encodeFileVersion(wallTime: number): Uint8Array {
  return EventType.encode(EventType.fromObject({ wallTime, fileVersion: FILE_VERSION })).finish();
}

/** One step's scalars as one Event of simple_values (float32, as TensorBoard stores them). */
export function encodeScalars(step: number, wallTime: number, scalars: readonly (readonly [string, number])[]): Uint8Array {
  return EventType.encode(
    EventType.fromObject({ wallTime, step, summary: { value: scalars.map(([tag, simpleValue]) => ({ tag, simpleValue })) } }),
  ).finish();
}
