/**
 * The player size bucket of a width in pixels (minWidth inclusive, maxWidth exclusive), as the
 * targeting contract defines it: small < 400, medium 400-639, large 640-1279, xlarge >= 1280.
 */
export function playerSizeOf(width: number): 'small' | 'medium' | 'large' | 'xlarge' {
  if (width < 400) return 'small';
  if (width < 640) return 'medium';
  if (width < 1280) return 'large';
  return 'xlarge';
}
