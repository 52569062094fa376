/**
 * Build-time settings of the console. VITE_INSIGHT_HUB_URL points the V2V edition's Insight Hub link
 * at the analytics site of that deployment.
 */
export const INSIGHT_HUB_URL: string = import.meta.env.VITE_INSIGHT_HUB_URL || 'https://insighthub.v2v.tv/';
