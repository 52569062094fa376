import { ObservedPage } from './ObservedPage.js';
import { OBSERVED } from './observedKinds.js';

export default function Page() {
  return <ObservedPage kind={OBSERVED.sites} />;
}
