/**
 * Pieces the DSP forms share (name and status come from resources/formParts.tsx). Forms are wrapped
 * in `.dsp-form` (dsp.css) so that pickers fill their grid column instead of shrinking to their content.
 */

/** A titled group of fields inside a drawer form: the one section of every console form. */
export { FormSection as Section } from '../../resources/formParts.js';
