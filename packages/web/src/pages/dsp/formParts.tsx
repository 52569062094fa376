import { type ReactNode } from 'react';

/**
 * Pieces the DSP forms share (name and status come from resources/formParts.tsx). Forms are wrapped
 * in `.dsp-form` (dsp.css) so that pickers fill their grid column instead of shrinking to their content.
 */

/** A titled group of fields inside a drawer form. */
export function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section className="dsp-section" aria-label={title}>
      <h4 className="dsp-section-title">{title}</h4>
      {children}
    </section>
  );
}
