//! SVG line charts for the benchmark figures (plotters' SVG backend, no fonts or bitmaps).

use anyhow::{anyhow, ensure};
use plotters::prelude::*;
use std::path::Path;

/// Draws `series` (name, points) as lines with dots into the SVG file `path`, both axes on a
/// log scale if `log`, otherwise linear from 0.
pub fn line_chart(
    path: &Path,
    title: &str,
    x_desc: &str,
    y_desc: &str,
    series: &[(String, Vec<(f64, f64)>)],
    log: bool,
) -> anyhow::Result<()> {
    let pts = series.iter().flat_map(|(_, v)| v.iter());
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for &(x, y) in pts {
        x0 = x0.min(x);
        x1 = x1.max(x);
        y0 = y0.min(y);
        y1 = y1.max(y);
    }
    ensure!(x0 <= x1, "nothing to plot");
    let err = |e: &dyn std::fmt::Debug| anyhow!("plot {}: {e:?}", path.display());
    let root = SVGBackend::new(path, (900, 560)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let colors = [RED, BLUE, GREEN, MAGENTA, BLACK, CYAN];
    let mut builder = ChartBuilder::on(&root);
    builder
        .caption(title, ("sans-serif", 22))
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(70);
    macro_rules! draw {
        ($chart:expr) => {{
            let mut chart = $chart;
            chart
                .configure_mesh()
                .x_desc(x_desc)
                .y_desc(y_desc)
                .draw()
                .map_err(|e| err(&e))?;
            for (i, (name, v)) in series.iter().enumerate() {
                let c = colors[i % colors.len()];
                chart
                    .draw_series(LineSeries::new(v.iter().copied(), c.stroke_width(2)))
                    .map_err(|e| err(&e))?
                    .label(name.as_str())
                    .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], c));
                chart
                    .draw_series(v.iter().map(|&p| Circle::new(p, 3, c.filled())))
                    .map_err(|e| err(&e))?;
            }
            chart
                .configure_series_labels()
                .background_style(WHITE.mix(0.8))
                .border_style(BLACK)
                .draw()
                .map_err(|e| err(&e))?;
        }};
    }
    if log {
        let chart = builder
            .build_cartesian_2d(
                (x0.max(1.0) * 0.8..x1 * 1.25).log_scale(),
                (y0.max(1e-3) * 0.5..y1 * 2.0).log_scale(),
            )
            .map_err(|e| err(&e))?;
        draw!(chart);
    } else {
        let chart = builder
            .build_cartesian_2d(0.0..x1 + 1.0, 0.0..y1 * 1.15)
            .map_err(|e| err(&e))?;
        draw!(chart);
    }
    root.present().map_err(|e| err(&e))?;
    Ok(())
}
