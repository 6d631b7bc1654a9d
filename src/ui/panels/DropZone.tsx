/**
 * A dashed area that takes dropped files (Other tools' runs, the Workflow panel's files): marked
 * while something is dragged over it; `onDrop` gets the drop's DataTransfer, from which a folder's
 * entries can still be read (interop.ts droppedFiles).
 */
import { useState } from 'react';
import type { ReactNode } from 'react';

export function DropZone(props: { testId: string; onDrop: (d: DataTransfer) => void; children: ReactNode }) {
  const [over, setOver] = useState(false);
  return (
    <div
      className={`drop-zone${over ? ' over' : ''}`}
      data-testid={props.testId}
      onDragOver={(e) => {
        e.preventDefault();
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={(e) => {
        e.preventDefault();
        e.stopPropagation();
        setOver(false);
        props.onDrop(e.dataTransfer);
      }}
    >
      {props.children}
    </div>
  );
}
