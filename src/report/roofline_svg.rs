//! The roofline chart as plain SVG: log-log axes, the bandwidth slope and the compute
//! ceiling, and one numbered point per kernel with a legend, so long templated C++ names
//! never overlap the plot. Kernels with no FP work get a second chart below: the
//! instruction roofline (warp instructions/s against warp instructions per DRAM sector,
//! under the issue ceiling and the DRAM slope).

use std::fmt::Write;

use crate::roofline::{Bound, Roofline, si};

pub struct Point<'a> {
    /// A short kernel name (see `report::short_name`).
    pub name: String,
    pub launch: u64,
    pub roof: &'a Roofline,
}

const W: f64 = 900.0;
const H: f64 = 560.0;
const LEFT: f64 = 80.0;
const RIGHT: f64 = 620.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 490.0;

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Log-log axes: decades of arithmetic intensity and of FLOP/s, mapped to the plot.
struct Scale {
    x_lo: f64,
    x_hi: f64,
    y_lo: f64,
    y_hi: f64,
}

impl Scale {
    fn x(&self, ai: f64) -> f64 {
        LEFT + (ai.log10().clamp(self.x_lo, self.x_hi) - self.x_lo) / (self.x_hi - self.x_lo)
            * (RIGHT - LEFT)
    }

    fn y(&self, f: f64) -> f64 {
        BOTTOM
            - (f.max(1e-30).log10().clamp(self.y_lo, self.y_hi) - self.y_lo)
                / (self.y_hi - self.y_lo)
                * (BOTTOM - TOP)
    }
}

fn bound_color(b: Bound) -> &'static str {
    match b {
        Bound::Memory => "#2471a3",
        Bound::Compute => "#1e8449",
        Bound::Unknown => "#7f8c8d",
        Bound::Instruction => "#d35400",
    }
}

/// A kernel with no FP work or no DRAM traffic has no place on log axes, and neither has
/// a tensor-core kernel: the FLOP counters miss its work, so its point would sit far
/// left and low of where it runs.
fn plottable(r: &Roofline) -> bool {
    r.arithmetic_intensity.is_finite()
        && r.arithmetic_intensity > 0.0
        && r.achieved_flops > 0.0
        && r.tensor_pipe_pct.is_none()
}

pub fn render(points: &[Point]) -> String {
    let peak_flops = points.iter().map(|p| p.roof.peak_flops).fold(0.0, f64::max);
    let peak_bw = points
        .iter()
        .map(|p| p.roof.peak_bytes_per_s)
        .fold(0.0, f64::max);
    // Decades that hold the roof and every point.
    let y_hi = (peak_flops.max(1.0)).log10().ceil() + 0.5;
    let sc = Scale {
        x_lo: -2.0,
        x_hi: 4.0,
        y_lo: y_hi - 6.5,
        y_hi,
    };
    let instructions = points.iter().any(|p| p.roof.instruction_roofline.is_some());
    let height = if instructions { 2.0 * H } else { H };
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{height}" viewBox="0 0 {W} {height}" font-family="sans-serif" font-size="12">"#
    );
    // Browsers show the document's title and each point's on hover; the image itself
    // says nothing only a browser can do.
    let _ = writeln!(
        s,
        "<title>Roofline (DRAM) by gpulint: hover a point for its kernel and launch</title>"
    );
    let _ = writeln!(s, r#"<rect width="{W}" height="{height}" fill="white"/>"#);
    let title = if points.iter().any(|p| !p.roof.hierarchy.is_empty()) {
        "Roofline (hierarchical): FLOP/s against FLOP per byte of DRAM (dots), L1 (squares) and L2 (triangles)"
    } else {
        "Roofline (DRAM): FLOP/s against FLOP per DRAM byte"
    };
    let _ = writeln!(
        s,
        r#"<text x="{LEFT}" y="24" font-size="15" font-weight="bold">{title}</text>"#
    );
    axes(&mut s, &sc, FLOP_AXES);
    roof(&mut s, &sc, peak_flops, peak_bw);
    hierarchy(&mut s, &sc, points, peak_flops);
    plot_points(&mut s, &sc, points, flop_coordinates);
    legend(&mut s, points);
    if instructions {
        let _ = writeln!(s, r#"<g transform="translate(0,{H})">"#);
        instruction_chart(&mut s, points);
        s.push_str("</g>\n");
    }
    s.push_str("</svg>\n");
    s
}

/// The axis titles of one chart.
type Titles = (&'static str, &'static str);
const FLOP_AXES: Titles = ("arithmetic intensity (FLOP/byte, log)", "FLOP/s (log)");
const INSTRUCTION_AXES: Titles = (
    "instruction intensity (warp instructions per 32-byte DRAM sector, log)",
    "warp instructions/s (log)",
);

fn flop_coordinates(r: &Roofline) -> Option<(f64, f64)> {
    plottable(r).then_some((r.arithmetic_intensity, r.achieved_flops))
}

fn instruction_coordinates(r: &Roofline) -> Option<(f64, f64)> {
    let i = r.instruction_roofline?;
    let x = i.warp_instructions_per_sector;
    (x.is_finite() && x > 0.0 && i.warp_instructions_per_s > 0.0)
        .then_some((x, i.warp_instructions_per_s))
}

/// The instruction roofline (NERSC's, Ding & Williams 2019) of the kernels with no FP work:
/// the issue ceiling (4 warp instructions a cycle per SM) and DRAM's sectors per second.
fn instruction_chart(s: &mut String, points: &[Point]) {
    let peak = |f: fn(&Roofline) -> f64| points.iter().map(|p| f(p.roof)).fold(0.0, f64::max);
    let peak_ips = peak(|r| {
        r.instruction_roofline
            .map_or(0.0, |i| i.peak_warp_instructions_per_s)
    });
    let peak_sectors = peak(|r| r.peak_bytes_per_s) / 32.0;
    let y_hi = peak_ips.max(1.0).log10().ceil() + 0.5;
    let sc = Scale {
        x_lo: -2.0,
        x_hi: 4.0,
        y_lo: y_hi - 6.5,
        y_hi,
    };
    let _ = writeln!(
        s,
        r#"<text x="{LEFT}" y="24" font-size="15" font-weight="bold">Instruction roofline (kernels with no FP work)</text>"#
    );
    axes(s, &sc, INSTRUCTION_AXES);
    if peak_ips > 0.0 && peak_sectors > 0.0 {
        let ridge = roof_line(s, &sc, peak_ips, peak_sectors);
        let _ = writeln!(
            s,
            r##"<text x="{:.1}" y="{:.1}" fill="#c0392b" text-anchor="end">issue ceiling {} warp instructions/s, ridge {ridge:.1} per sector</text>"##,
            RIGHT - 6.0,
            sc.y(peak_ips) - 7.0,
            si(peak_ips, "")
        );
    }
    plot_points(s, &sc, points, instruction_coordinates);
    let _ = writeln!(
        s,
        r##"<text x="{LEFT}" y="{}" font-size="11" fill="#555">orange: instruction-bound, blue: memory-bound; numbers: launch IDs</text>"##,
        H - 12.0
    );
}

/// Grid lines, decade labels and axis titles.
fn axes(s: &mut String, sc: &Scale, (x_title, y_title): Titles) {
    // Grid and axes.
    for d in (sc.x_lo as i32)..=(sc.x_hi as i32) {
        let px = sc.x(10f64.powi(d));
        let _ = writeln!(
            s,
            r##"<line x1="{px:.1}" y1="{TOP}" x2="{px:.1}" y2="{BOTTOM}" stroke="#e5e5e5"/>"##
        );
        let _ = writeln!(
            s,
            r#"<text x="{px:.1}" y="{}" text-anchor="middle">1e{d}</text>"#,
            BOTTOM + 18.0
        );
    }
    for d in (sc.y_lo.ceil() as i32)..=(sc.y_hi.floor() as i32) {
        let py = sc.y(10f64.powi(d));
        let _ = writeln!(
            s,
            r##"<line x1="{LEFT}" y1="{py:.1}" x2="{RIGHT}" y2="{py:.1}" stroke="#e5e5e5"/>"##
        );
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{:.1}" text-anchor="end">1e{d}</text>"#,
            LEFT - 6.0,
            py + 4.0
        );
    }
    let _ = writeln!(
        s,
        r##"<rect x="{LEFT}" y="{TOP}" width="{}" height="{}" fill="none" stroke="#333"/>"##,
        RIGHT - LEFT,
        BOTTOM - TOP
    );
    let _ = writeln!(
        s,
        r#"<text x="{}" y="{}" text-anchor="middle">{x_title}</text>"#,
        (LEFT + RIGHT) / 2.0,
        BOTTOM + 38.0
    );
    let _ = writeln!(
        s,
        r#"<text x="20" y="{}" text-anchor="middle" transform="rotate(-90 20 {})">{y_title}</text>"#,
        (TOP + BOTTOM) / 2.0,
        (TOP + BOTTOM) / 2.0
    );
}

/// The roof of either chart: the memory slope (`slope` per unit of intensity) up to the
/// ridge, then the flat `ceiling`. Returns the ridge.
fn roof_line(s: &mut String, sc: &Scale, ceiling: f64, slope: f64) -> f64 {
    let ridge = ceiling / slope;
    let start = 10f64.powf(sc.x_lo);
    let _ = writeln!(
        s,
        r##"<polyline points="{:.1},{:.1} {:.1},{:.1} {:.1},{:.1}" fill="none" stroke="#c0392b" stroke-width="2.5"/>"##,
        sc.x(start),
        sc.y(start * slope),
        sc.x(ridge),
        sc.y(ceiling),
        sc.x(10f64.powf(sc.x_hi)),
        sc.y(ceiling)
    );
    ridge
}

/// The hierarchical roofline's cache levels: L1's and L2's bandwidth slopes (dashed), and
/// each kernel's place against them, a hollow square (L1) or triangle (L2) at its
/// intensity at that level, joined to its DRAM point: the FLOP/s are the same, so the
/// marks of one kernel lie on one horizontal line.
fn hierarchy(s: &mut String, sc: &Scale, points: &[Point], peak_flops: f64) {
    for level in ["L1", "L2"] {
        let peak = points
            .iter()
            .flat_map(|p| &p.roof.hierarchy)
            .filter(|l| l.level == level)
            .map(|l| l.peak_bytes_per_s)
            .fold(0.0, f64::max);
        if peak <= 0.0 || peak_flops <= 0.0 {
            continue;
        }
        let start = 10f64.powf(sc.x_lo);
        let ridge = peak_flops / peak;
        let _ = writeln!(
            s,
            r##"<polyline points="{:.1},{:.1} {:.1},{:.1}" fill="none" stroke="#7f8c8d" stroke-width="1.5" stroke-dasharray="6 4"/>"##,
            sc.x(start),
            sc.y(start * peak),
            sc.x(ridge.max(start)),
            sc.y(peak_flops),
        );
        let _ = writeln!(
            s,
            r##"<text x="{:.1}" y="{:.1}" fill="#7f8c8d">{} {level}</text>"##,
            sc.x(start) + 4.0,
            sc.y(start * peak) - 6.0,
            si(peak, "B/s")
        );
    }
    for p in points {
        let r = p.roof;
        let Some((x0, y)) = flop_coordinates(r) else {
            continue;
        };
        for l in r.hierarchy.iter().filter(|l| l.level != "DRAM") {
            let x = l.arithmetic_intensity;
            if !(x.is_finite() && x > 0.0) {
                continue;
            }
            let (px, py) = (sc.x(x), sc.y(y));
            let _ = writeln!(
                s,
                r##"<line x1="{px:.1}" y1="{py:.1}" x2="{:.1}" y2="{py:.1}" stroke="#bdc3c7"/>"##,
                sc.x(x0)
            );
            let mark = if l.level == "L1" {
                format!(
                    r##"<rect x="{:.1}" y="{:.1}" width="8" height="8" fill="none" stroke="#555"/>"##,
                    px - 4.0,
                    py - 4.0
                )
            } else {
                format!(
                    r##"<polygon points="{:.1},{:.1} {:.1},{:.1} {:.1},{:.1}" fill="none" stroke="#555"/>"##,
                    px,
                    py - 5.0,
                    px - 5.0,
                    py + 4.0,
                    px + 5.0,
                    py + 4.0
                )
            };
            let _ = writeln!(
                s,
                "<g data-launch=\"{}\"><title>{} (launch {}) against {}: {:.0}% of its roof</title>{mark}</g>",
                p.launch,
                esc(&p.name),
                p.launch,
                l.level,
                l.pct_of_roof
            );
        }
    }
}

/// The bandwidth slope up to the ridge, then the compute ceiling.
fn roof(s: &mut String, sc: &Scale, peak_flops: f64, peak_bw: f64) {
    if peak_flops > 0.0 && peak_bw > 0.0 {
        let ridge = roof_line(s, sc, peak_flops, peak_bw);
        let start = 10f64.powf(sc.x_lo);
        let _ = writeln!(
            s,
            r##"<text x="{:.1}" y="{:.1}" fill="#c0392b" text-anchor="end">peak {}, ridge {:.1} FLOP/B</text>"##,
            RIGHT - 6.0,
            // Above the ceiling: no kernel runs there, so no point is hidden.
            sc.y(peak_flops) - 7.0,
            si(peak_flops, "FLOP/s"),
            ridge
        );
        let _ = writeln!(
            s,
            r##"<text x="{:.1}" y="{:.1}" fill="#c0392b" transform="rotate(-34 {:.1} {:.1})">{} DRAM</text>"##,
            sc.x(start * 8.0),
            sc.y(start * 8.0 * peak_bw) - 8.0,
            sc.x(start * 8.0),
            sc.y(start * 8.0 * peak_bw) - 8.0,
            si(peak_bw, "B/s")
        );
    }
}

/// One numbered point per kernel that `coordinates` places.
fn plot_points(
    s: &mut String,
    sc: &Scale,
    points: &[Point],
    coordinates: fn(&Roofline) -> Option<(f64, f64)>,
) {
    // Points, numbered by launch ID as the text report numbers them. A kernel with no FP work or no DRAM traffic has no place on log
    // axes: the legend says so instead of piling such points in a corner.
    let mut placed: Vec<(f64, f64)> = Vec::new();
    for p in points {
        let r = p.roof;
        let Some((x, y)) = coordinates(r) else {
            continue;
        };
        let (px, py) = (sc.x(x), sc.y(y));
        let color = bound_color(r.bound);
        let _ = writeln!(
            s,
            r#"<circle cx="{px:.1}" cy="{py:.1}" r="5" fill="{color}" data-launch="{}"><title>{} (launch {})</title></circle>"#,
            p.launch,
            esc(&p.name),
            p.launch
        );
        // Stagger the numbers of points that land on the same spot.
        let near = placed
            .iter()
            .filter(|(qx, qy)| (qx - px).abs() < 14.0 && (qy - py).abs() < 12.0)
            .count();
        placed.push((px, py));
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{:.1}" font-size="11">{}</text>"#,
            px + 7.0,
            py + 4.0 - 12.0 * near as f64,
            p.launch
        );
    }
}

/// Number, bound colour and name of every kernel, plotted or not.
fn legend(s: &mut String, points: &[Point]) {
    // Legend: launch ID, bound, name.
    let _ = writeln!(
        s,
        r#"<text x="{}" y="{}" font-weight="bold">kernels</text>"#,
        RIGHT + 16.0,
        TOP + 4.0
    );
    let row_h = ((BOTTOM - TOP - 60.0) / points.len().max(1) as f64).clamp(8.0, 16.0);
    for (i, p) in points.iter().enumerate() {
        let yy = TOP + 22.0 + i as f64 * row_h;
        if yy > H - 10.0 {
            let _ = writeln!(
                s,
                r#"<text x="{}" y="{yy:.1}">… {} more</text>"#,
                RIGHT + 16.0,
                points.len() - i
            );
            break;
        }
        let color = bound_color(p.roof.bound);
        let short = crate::printable::clip(&p.name, 24);
        let name = match p.roof.tensor_pipe_pct {
            _ if plottable(p.roof) => short,
            Some(t) => format!("{short}: tensor pipe {t:.0}%, FLOPs uncounted"),
            None => format!("{short}: no FP work"),
        };
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{yy:.1}" font-size="{:.0}"><tspan fill="{color}">{:>2}</tspan> {}</text>"#,
            RIGHT + 16.0,
            (row_h - 2.0).clamp(7.0, 12.0),
            p.launch,
            esc(&name)
        );
    }
    let _ = writeln!(
        s,
        r##"<text x="{LEFT}" y="{}" font-size="11" fill="#555">blue: memory-bound, green: compute-bound; numbers: launch IDs, as in the text report</text>"##,
        H - 12.0
    );
}
