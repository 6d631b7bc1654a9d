/**
 * A chart as an image that names what it shows: its title, a legend (each line's run and agent
 * name in its colour and dash), the axis names around the plot's SVG, and under it the data's
 * extent and the experiment it came from (its title and link), so a picture pasted elsewhere
 * still says what it is. One layout, measured with canvas text metrics, is painted to a 2× PNG or
 * written out as an SVG (docs/charts.md#exports).
 */
import { downloadBlob } from './export';

export interface ChartImageParts {
  title: string;
  /** The drawn lines: legend entries in the chart's order. */
  series: { name: string; color: string; dash: string }[];
  xName: string;
  yName: string;
  /**
   * Lines under the plot, each wrapped to the image's width (a link is cut anywhere): what the
   * data spans (the axes round past it), then the experiment's title and link.
   */
  notes?: string[];
}

const PAD = 10;
/** Room left of the plot for the rotated y-axis name. */
const Y_NAME = 16;
const SWATCH = 24;
const TITLE_FONT = (family: string) => `600 14px ${family}`;
const TEXT_FONT = (family: string) => `12px ${family}`;
const AXIS_FONT = (family: string) => `11px ${family}`;

interface Text {
  text: string;
  x: number;
  y: number;
  font: string;
  color: string;
  /** Rotated a quarter turn anticlockwise about (x, y), centred there. */
  vertical?: boolean;
}
interface Layout {
  width: number;
  height: number;
  texts: Text[];
  swatches: { x: number; y: number; color: string; dash: string }[];
  plot: { x: number; y: number; width: number; height: number };
}

/**
 * `text` in lines no wider than `inner` in the context's font: wrapped on spaces, and a word
 * wider than a line (a link) cut where it reaches the edge.
 */
function wrap(ctx: CanvasRenderingContext2D, text: string, inner: number): string[] {
  const fits = (t: string) => ctx.measureText(t).width <= inner;
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    const next = line ? `${line} ${word}` : word;
    if (fits(next)) {
      line = next;
      continue;
    }
    // A word that fits a line of its own starts one; a longer one goes on here and is cut.
    if (fits(word)) {
      lines.push(line);
      line = word;
      continue;
    }
    if (line) line += ' ';
    for (const ch of word) {
      if (line && !fits(line + ch)) {
        lines.push(line);
        line = '';
      }
      line += ch;
    }
  }
  lines.push(line);
  return lines;
}

/** Where everything goes: title lines (wrapped), legend rows (wrapped), the plot, the axis names, the notes. */
function layout(ctx: CanvasRenderingContext2D, p: ChartImageParts, plotW: number, plotH: number): Layout {
  const family = getComputedStyle(document.documentElement).fontFamily || 'sans-serif';
  const width = Math.max(plotW + Y_NAME + 2 * PAD, 320);
  const inner = width - 2 * PAD;
  const texts: Text[] = [];
  const swatches: Layout['swatches'] = [];
  let y = PAD;
  // Title, wrapped on words.
  ctx.font = TITLE_FONT(family);
  for (const l of wrap(ctx, p.title, inner)) {
    texts.push({ text: l, x: PAD, y: y + 14, font: TITLE_FONT(family), color: '#1d232b' });
    y += 19;
  }
  // Legend: a swatch in the line's colour and dash, then its name; rows wrap.
  ctx.font = TEXT_FONT(family);
  let x = PAD;
  y += 4;
  for (const s of p.series) {
    const w = SWATCH + 4 + ctx.measureText(s.name).width + 12;
    if (x > PAD && x + w > width - PAD) {
      x = PAD;
      y += 17;
    }
    swatches.push({ x, y: y + 8, color: s.color, dash: s.dash });
    texts.push({ text: s.name, x: x + SWATCH + 4, y: y + 12, font: TEXT_FONT(family), color: '#1d232b' });
    x += w;
  }
  y += p.series.length ? 22 : 0;
  const plot = { x: PAD + Y_NAME, y, width: plotW, height: plotH };
  const axis = { font: AXIS_FONT(family), color: '#4b5561' };
  texts.push({
    text: p.xName,
    x: plot.x + plotW / 2 - ctx.measureText(p.xName).width / 2,
    y: y + plotH + 14,
    ...axis,
  });
  texts.push({ text: p.yName, x: PAD + 8, y: y + plotH / 2, vertical: true, ...axis });
  y += plotH + 20;
  ctx.font = axis.font;
  for (const note of p.notes ?? [])
    for (const l of wrap(ctx, note, inner)) {
      texts.push({ text: l, x: PAD, y: y + 11, ...axis });
      y += 14;
    }
  return { width, height: y + (p.notes?.length ? PAD : 0), texts, swatches, plot };
}

/** The plot's SVG as standalone markup of its on-screen size, in the page's font. */
function plotSvg(svg: SVGSVGElement): { markup: string; width: number; height: number } {
  const { width, height } = svg.getBoundingClientRect();
  const copy = svg.cloneNode(true) as SVGSVGElement;
  copy.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
  copy.setAttribute('width', String(width));
  copy.setAttribute('height', String(height));
  copy.style.fontFamily = getComputedStyle(svg).fontFamily;
  return { markup: new XMLSerializer().serializeToString(copy), width, height };
}

/** The chart painted at `scale`× onto a white canvas. */
async function chartCanvas(svg: SVGSVGElement, p: ChartImageParts, scale = 2): Promise<HTMLCanvasElement> {
  const plot = plotSvg(svg);
  const canvas = document.createElement('canvas');
  const ctx = canvas.getContext('2d');
  if (!ctx) throw new Error('no 2D canvas');
  const l = layout(ctx, p, plot.width, plot.height);
  canvas.width = Math.ceil(l.width * scale);
  canvas.height = Math.ceil(l.height * scale);
  ctx.scale(scale, scale);
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, l.width, l.height);
  const url = URL.createObjectURL(new Blob([plot.markup], { type: 'image/svg+xml' }));
  try {
    const img = new Image();
    img.src = url;
    await img.decode();
    ctx.drawImage(img, l.plot.x, l.plot.y, l.plot.width, l.plot.height);
  } finally {
    URL.revokeObjectURL(url);
  }
  for (const s of l.swatches) {
    ctx.strokeStyle = s.color;
    ctx.lineWidth = 2;
    ctx.setLineDash(s.dash ? s.dash.split(' ').map(Number) : []);
    ctx.beginPath();
    ctx.moveTo(s.x, s.y);
    ctx.lineTo(s.x + SWATCH, s.y);
    ctx.stroke();
  }
  for (const t of l.texts) {
    ctx.font = t.font;
    ctx.fillStyle = t.color;
    ctx.save();
    ctx.translate(t.x, t.y);
    if (t.vertical) {
      ctx.rotate(-Math.PI / 2);
      ctx.textAlign = 'center';
    }
    ctx.fillText(t.text, 0, 0);
    ctx.restore();
  }
  return canvas;
}

/** The chart as a 2× PNG download. */
export async function chartPng(svg: SVGSVGElement, p: ChartImageParts, name: string): Promise<void> {
  const canvas = await chartCanvas(svg, p);
  const blob = await new Promise<Blob | null>((resolve) => canvas.toBlob(resolve, 'image/png'));
  if (!blob) throw new Error('the canvas gave no PNG');
  downloadBlob(`${name}.png`, blob);
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');

/** The same layout as an SVG document: text stays text, the plot stays vectors. */
function chartSvgText(svg: SVGSVGElement, p: ChartImageParts): string {
  const plot = plotSvg(svg);
  const ctx = document.createElement('canvas').getContext('2d');
  if (!ctx) throw new Error('no 2D canvas');
  const l = layout(ctx, p, plot.width, plot.height);
  const nested = plot.markup.replace(/^<svg /, `<svg x="${l.plot.x}" y="${l.plot.y}" `);
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${l.width}" height="${l.height}" viewBox="0 0 ${l.width} ${l.height}">`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    ...l.swatches.map(
      (s) =>
        `<line x1="${s.x}" y1="${s.y}" x2="${s.x + SWATCH}" y2="${s.y}" stroke="${s.color}" stroke-width="2"${s.dash ? ` stroke-dasharray="${s.dash}"` : ''}/>`,
    ),
    ...l.texts.map(
      (t) =>
        `<text x="${t.x}" y="${t.y}" style="font:${esc(t.font)}" fill="${t.color}"${t.vertical ? ` text-anchor="middle" transform="rotate(-90 ${t.x} ${t.y})"` : ''}>${esc(t.text)}</text>`,
    ),
    nested,
    '</svg>',
  ];
  return parts.join('\n');
}

export function chartSvg(svg: SVGSVGElement, p: ChartImageParts, name: string): void {
  downloadBlob(`${name}.svg`, new Blob([chartSvgText(svg, p)], { type: 'image/svg+xml' }));
}
