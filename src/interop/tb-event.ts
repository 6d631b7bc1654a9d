/**
 * TensorBoard's Event and Summary messages (tensorflow/core/util/event.proto,
 * framework/summary.proto, tensor.proto): the fields a scalar needs, read and written with
 * protobufjs's wire-format Reader and Writer (its minimal build: no reflection, whose generated
 * code needs eval, which the page's Content-Security-Policy forbids). Every other field (graphs,
 * images, histograms, plugin metadata, …) is skipped by wire type, so any event file reads. A
 * scalar comes as `simple_value` (float) or, from tf.summary in TF 2 and newer writers, as a
 * rank-0 tensor of float, double, int32 or int64. A text summary (one string, TensorBoard's Text
 * tab) is read and written too: the lab's event files carry their run's card in one. Pure: no
 * Node, no DOM.
 */
import protobuf from 'protobufjs/minimal';

const { Reader, Writer } = protobuf;
type ProtoReader = InstanceType<typeof Reader>;

/** Field numbers, as in the .proto files. */
const EVENT = { wallTime: 1, step: 2, fileVersion: 3, summary: 5 } as const;
const SUMMARY = { value: 1 } as const;
const VALUE = { tag: 1, simpleValue: 2, tensor: 8, metadata: 9 } as const;
const TENSOR = {
  dtype: 1,
  shape: 2,
  tensorContent: 4,
  floatVal: 5,
  doubleVal: 6,
  intVal: 7,
  stringVal: 8,
  int64Val: 10,
} as const;
/** SummaryMetadata.plugin_data, and PluginData.plugin_name. */
const METADATA = { pluginData: 1 } as const;
const PLUGIN = { name: 1 } as const;
/** Wire types. */
const VARINT = 0;
const FIXED64 = 1;
const BYTES = 2;
const FIXED32 = 5;
/** tensorflow.DataType values a scalar may have. */
const DT = { float: 1, double: 2, int32: 3, string: 7, int64: 9 } as const;

/** The first event of every file (TensorBoard checks it). */
const FILE_VERSION = 'brain.Event:2';

interface ScalarEvent {
  step: number;
  wallTime: number;
  /** tag → value, as stored (float32 values stay exact). */
  scalars: [string, number][];
  /** tag → text, for each text summary (a rank-0 string tensor). */
  texts: [string, string][];
}

const key = (field: number, wire: number) => ((field << 3) | wire) >>> 0;
/** An int64 as read: a number, or a Long when the long package is there (it is, for protobufjs). */
const toNumber = (x: number | protobuf.Long): number =>
  typeof x === 'number' ? x : protobuf.util.LongBits.from(x).toNumber();

/** The values of a repeated numeric field, packed (one length-delimited run) or not. */
function repeated(r: ProtoReader, wire: number, elementWire: number, read: () => number): number[] {
  if (wire !== BYTES) return wire === elementWire ? [read()] : (r.skipType(wire), []);
  const end = r.uint32() + r.pos;
  const out: number[] = [];
  while (r.pos < end) out.push(read());
  return out;
}

/** A TensorProto's value if it holds exactly one number of a scalar dtype or one string, else null. */
function readTensor(r: ProtoReader, end: number): number | string | null {
  let dtype = 0;
  let content: Uint8Array | null = null;
  let values: number[] = [];
  const strings: string[] = [];
  while (r.pos < end) {
    const tag = r.uint32();
    const wire = tag & 7;
    switch (tag >>> 3) {
      case TENSOR.dtype:
        if (wire !== VARINT) r.skipType(wire);
        else dtype = r.int32();
        break;
      case TENSOR.tensorContent:
        if (wire !== BYTES) r.skipType(wire);
        else content = r.bytes();
        break;
      case TENSOR.floatVal:
        values = repeated(r, wire, FIXED32, () => r.float());
        break;
      case TENSOR.doubleVal:
        values = repeated(r, wire, FIXED64, () => r.double());
        break;
      case TENSOR.intVal:
        values = repeated(r, wire, VARINT, () => r.int32());
        break;
      case TENSOR.int64Val:
        values = repeated(r, wire, VARINT, () => toNumber(r.int64()));
        break;
      case TENSOR.stringVal:
        if (wire !== BYTES) r.skipType(wire);
        else strings.push(r.string());
        break;
      default:
        r.skipType(wire);
    }
  }
  if (dtype === DT.string) return strings.length === 1 ? strings[0] : null;
  if (content && content.length > 0) {
    const view = new DataView(content.buffer, content.byteOffset, content.byteLength);
    if (dtype === DT.float && view.byteLength === 4) return view.getFloat32(0, true);
    if (dtype === DT.double && view.byteLength === 8) return view.getFloat64(0, true);
    if (dtype === DT.int32 && view.byteLength === 4) return view.getInt32(0, true);
    if (dtype === DT.int64 && view.byteLength === 8) return Number(view.getBigInt64(0, true));
    return null;
  }
  const scalarType = dtype === DT.float || dtype === DT.double || dtype === DT.int32 || dtype === DT.int64;
  return scalarType && values.length === 1 ? values[0] : null;
}

/** One Summary.Value: its tag and scalar or text, or null if it holds something else. */
function readValue(r: ProtoReader, end: number): [string, number | string] | null {
  let tag: string | null = null;
  let value: number | string | null = null;
  while (r.pos < end) {
    const k = r.uint32();
    const wire = k & 7;
    const field = k >>> 3;
    if (field === VALUE.tag && wire === BYTES) tag = r.string();
    else if (field === VALUE.simpleValue && wire === FIXED32) value = r.float();
    else if (field === VALUE.tensor && wire === BYTES) value = readTensor(r, r.uint32() + r.pos);
    else r.skipType(wire);
  }
  return tag && value !== null ? [tag, value] : null;
}

/**
 * Decodes one record's Event; returns its scalars and texts (none for a file-version event).
 * Throws on bytes that are not an Event message (the caller counts the record as damaged).
 */
export function decodeEvent(data: Uint8Array): ScalarEvent {
  const r = Reader.create(data);
  const event: ScalarEvent = { step: 0, wallTime: 0, scalars: [], texts: [] };
  while (r.pos < r.len) {
    const k = r.uint32();
    const wire = k & 7;
    const field = k >>> 3;
    if (field === EVENT.wallTime && wire === FIXED64) event.wallTime = r.double();
    else if (field === EVENT.step && wire === VARINT) event.step = toNumber(r.int64());
    else if (field === EVENT.summary && wire === BYTES) {
      const end = r.uint32() + r.pos;
      while (r.pos < end) {
        const vk = r.uint32();
        if (vk >>> 3 !== SUMMARY.value || (vk & 7) !== BYTES) {
          r.skipType(vk & 7);
          continue;
        }
        const value = readValue(r, r.uint32() + r.pos);
        if (value && typeof value[1] === 'number') event.scalars.push([value[0], value[1]]);
        else if (value) event.texts.push([value[0], value[1] as string]);
      }
    } else r.skipType(wire);
  }
  if (r.pos !== r.len) throw new Error('event overruns its record');
  return event;
}

/** The event every file starts with. */
export function encodeFileVersion(wallTime: number): Uint8Array {
  const w = Writer.create();
  w.uint32(key(EVENT.wallTime, FIXED64)).double(wallTime);
  w.uint32(key(EVENT.fileVersion, BYTES)).string(FILE_VERSION);
  return w.finish();
}

/** One step's scalars as one Event of simple_values (float32, as TensorBoard stores them). */
export function encodeScalars(
  step: number,
  wallTime: number,
  scalars: readonly (readonly [string, number])[],
): Uint8Array {
  const w = Writer.create();
  w.uint32(key(EVENT.wallTime, FIXED64)).double(wallTime);
  w.uint32(key(EVENT.step, VARINT)).int64(step);
  w.uint32(key(EVENT.summary, BYTES)).fork();
  for (const [tag, value] of scalars) {
    w.uint32(key(SUMMARY.value, BYTES)).fork();
    w.uint32(key(VALUE.tag, BYTES)).string(tag);
    w.uint32(key(VALUE.simpleValue, FIXED32)).float(value);
    w.ldelim();
  }
  w.ldelim();
  return w.finish();
}

/**
 * One text summary as one Event: a rank-0 string tensor with the text plugin's metadata, as
 * tf.summary.text writes it, so TensorBoard shows it in its Text tab.
 */
export function encodeText(step: number, wallTime: number, tag: string, text: string): Uint8Array {
  const w = Writer.create();
  w.uint32(key(EVENT.wallTime, FIXED64)).double(wallTime);
  w.uint32(key(EVENT.step, VARINT)).int64(step);
  w.uint32(key(EVENT.summary, BYTES)).fork();
  w.uint32(key(SUMMARY.value, BYTES)).fork();
  w.uint32(key(VALUE.tag, BYTES)).string(tag);
  w.uint32(key(VALUE.metadata, BYTES)).fork();
  w.uint32(key(METADATA.pluginData, BYTES)).fork();
  w.uint32(key(PLUGIN.name, BYTES)).string('text');
  w.ldelim().ldelim();
  w.uint32(key(VALUE.tensor, BYTES)).fork();
  w.uint32(key(TENSOR.dtype, VARINT)).int32(DT.string);
  w.uint32(key(TENSOR.shape, BYTES)).fork().ldelim(); // rank 0
  w.uint32(key(TENSOR.stringVal, BYTES)).string(text);
  w.ldelim().ldelim().ldelim();
  return w.finish();
}
