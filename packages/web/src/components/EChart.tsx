import { type CSSProperties, useEffect, useRef } from 'react';
import * as echarts from 'echarts/core';
import { BarChart, LineChart } from 'echarts/charts';
import { AriaComponent, GridComponent, LegendComponent, TooltipComponent } from 'echarts/components';
import { CanvasRenderer } from 'echarts/renderers';
import { useReducedMotion } from '../prefs/reducedMotion.js';

echarts.use([LineChart, BarChart, AriaComponent, GridComponent, LegendComponent, TooltipComponent, CanvasRenderer]);

export type EChartOption = Parameters<echarts.ECharts['setOption']>[0];

/**
 * One ECharts chart (line and bar, tree-shaken). A small wrapper instead of echarts-for-react, whose
 * builds require tslib, which the workspace does not install: init once, replace the option on
 * change, follow the box's size, dispose on unmount. Every chart describes itself in words for screen
 * readers (ECharts' aria: the box's aria-label names each series and its values), which a canvas
 * cannot. Charts draw without their entry animation for a person who asked for reduced motion.
 */
export function EChart({ option, style, testId }: { option: EChartOption; style?: CSSProperties; testId?: string }) {
  const box = useRef<HTMLDivElement>(null);
  const chart = useRef<echarts.ECharts | null>(null);
  const reduced = useReducedMotion();

  useEffect(() => {
    if (!box.current) return;
    const instance = echarts.init(box.current);
    chart.current = instance;
    const observer = typeof ResizeObserver === 'undefined' ? null : new ResizeObserver(() => instance.resize());
    observer?.observe(box.current);
    return () => {
      observer?.disconnect();
      instance.dispose();
      chart.current = null;
    };
  }, []);

  useEffect(() => {
    chart.current?.setOption(
      { aria: { enabled: true }, ...option, ...(reduced ? { animation: false } : {}) },
      { notMerge: true },
    );
  }, [option, reduced]);

  return <div ref={box} style={{ width: '100%', height: 300, ...style }} data-testid={testId} />;
}
