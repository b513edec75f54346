//! The SVG frame every chart shares: title, plot area with grid and labelled axes, and a legend
//! in a column of its own to the right (so no legend text can cover a curve). Every text
//! element carries its font size, so its extent can be estimated ([`super::axis::text_width`])
//! and the tests can check that no two texts overlap.
use super::axis::{text_width, Axis, FONT};
use std::fmt::Write;

/// Left edge of the plot area (room for the y labels and the rotated y title).
pub const LEFT: f64 = 84.0;
/// Top edge of the plot area (room for the title and a subtitle).
pub const TOP: f64 = 64.0;
/// Plot area width and height.
pub const WIDTH: f64 = 560.0;
/// Plot area height.
pub const HEIGHT: f64 = 360.0;
/// Room below the plot area (x labels and title).
const BOTTOM: f64 = 58.0;
/// Gap between the plot area and the legend column.
const LEGEND_GAP: f64 = 36.0;
/// Legend line height.
const LEGEND_ROW: f64 = 20.0;
/// Legend swatch length.
const SWATCH: f64 = 28.0;

/// The x axis's pixel span (left → right).
pub fn x_span() -> (f64, f64) {
    (LEFT, LEFT + WIDTH)
}

/// The y axis's pixel span (bottom → top: larger values higher).
pub fn y_span() -> (f64, f64) {
    (TOP + HEIGHT, TOP)
}

/// How a line is drawn.
#[derive(Clone, Copy, Debug)]
pub struct Stroke {
    /// CSS colour.
    pub color: &'static str,
    /// Line width (px).
    pub width: f64,
    /// `stroke-dasharray` ("" for solid).
    pub dash: &'static str,
    /// Opacity in (0, 1].
    pub opacity: f64,
}

impl Stroke {
    fn attrs(&self) -> String {
        let mut s = format!(
            r#"fill="none" stroke="{}" stroke-width="{}""#,
            self.color, self.width
        );
        if !self.dash.is_empty() {
            let _ = write!(s, r#" stroke-dasharray="{}""#, self.dash);
        }
        if self.opacity < 1.0 {
            let _ = write!(s, r#" stroke-opacity="{}""#, self.opacity);
        }
        s
    }
}

/// A legend row's symbol.
#[derive(Clone, Debug)]
pub enum Swatch {
    /// A line in this stroke.
    Line(Stroke),
    /// An open circle in this colour.
    Circle(&'static str),
    /// A line with a dot on it (samples joined by a line).
    Dots(Stroke),
    /// Two vertical ticks (an interval's ends), joined.
    Bracket(Stroke),
    /// No symbol (a note).
    None,
}

/// XML-escaped text.
pub fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A chart under construction: axes, the drawn body, legend rows.
pub struct Chart {
    /// The horizontal axis (spanning [`x_span`]).
    pub x: Axis,
    /// The vertical axis (spanning [`y_span`]).
    pub y: Axis,
    title: String,
    subtitle: String,
    x_title: String,
    y_title: String,
    body: String,
    legend: Vec<(Swatch, String)>,
}

impl Chart {
    /// A chart with these axes and titles.
    pub fn new(x: Axis, y: Axis, titles: [&str; 4]) -> Chart {
        let [title, subtitle, x_title, y_title] = titles.map(str::to_string);
        Chart {
            x,
            y,
            title,
            subtitle,
            x_title,
            y_title,
            body: String::new(),
            legend: Vec::new(),
        }
    }

    /// A polyline through data points (each clamped into the axis ranges), with a CSS class.
    pub fn polyline(&mut self, class: &str, pts: &[(f64, f64)], stroke: Stroke) {
        let coords: Vec<String> = pts
            .iter()
            .map(|&(a, b)| {
                let (a, b) = (self.x.clamp(a).0, self.y.clamp(b).0);
                format!("{:.2},{:.2}", self.x.px(a), self.y.px(b))
            })
            .collect();
        let _ = writeln!(
            self.body,
            r#"<polyline class="{class}" {} points="{}"/>"#,
            stroke.attrs(),
            coords.join(" ")
        );
    }

    /// A straight segment between two data points (clamped into the axis ranges).
    pub fn segment(&mut self, class: &str, a: (f64, f64), b: (f64, f64), stroke: Stroke) {
        self.polyline(class, &[a, b], stroke);
    }

    /// A vertical tick of `half` px either side of a data point.
    pub fn vtick(&mut self, class: &str, at: (f64, f64), half: f64, stroke: Stroke) {
        let (x, y) = (
            self.x.px(self.x.clamp(at.0).0),
            self.y.px(self.y.clamp(at.1).0),
        );
        let _ = writeln!(
            self.body,
            r#"<polyline class="{class}" {} points="{x:.2},{:.2} {x:.2},{:.2}"/>"#,
            stroke.attrs(),
            y - half,
            y + half
        );
    }

    /// Small filled dots at data points (clamped into the axis ranges).
    pub fn dots(&mut self, class: &str, pts: &[(f64, f64)], color: &str, opacity: f64) {
        for &(a, b) in pts {
            let (cx, cy) = (self.x.px(self.x.clamp(a).0), self.y.px(self.y.clamp(b).0));
            let _ = writeln!(
                self.body,
                r#"<circle class="{class}" cx="{cx:.2}" cy="{cy:.2}" r="2.5" fill="{color}" fill-opacity="{opacity}"/>"#
            );
        }
    }

    /// An open circle at a data point.
    pub fn circle(&mut self, class: &str, at: (f64, f64), color: &str) {
        let (cx, cy) = (
            self.x.px(self.x.clamp(at.0).0),
            self.y.px(self.y.clamp(at.1).0),
        );
        let _ = writeln!(
            self.body,
            r#"<circle class="{class}" cx="{cx:.2}" cy="{cy:.2}" r="5" fill="white" stroke="{color}" stroke-width="2"/>"#
        );
    }

    /// A legend row.
    pub fn legend(&mut self, swatch: Swatch, text: impl Into<String>) {
        self.legend.push((swatch, text.into()));
    }

    fn text(out: &mut String, class: &str, (x, y): (f64, f64), anchor: &str, size: f64, t: &str) {
        let _ = writeln!(
            out,
            r#"<text class="{class}" x="{x:.2}" y="{y:.2}" text-anchor="{anchor}" font-size="{size}">{}</text>"#,
            escape(t)
        );
    }

    fn grid_and_ticks(&self, out: &mut String) {
        let (x0, x1) = x_span();
        let (y0, y1) = y_span();
        let grid = |out: &mut String, v: f64, vertical: bool, color: &str| {
            let _ = if vertical {
                let p = self.x.px(v);
                writeln!(
                    out,
                    r#"<line x1="{p:.2}" x2="{p:.2}" y1="{y1}" y2="{y0}" stroke="{color}"/>"#
                )
            } else {
                let p = self.y.px(v);
                writeln!(
                    out,
                    r#"<line x1="{x0}" x2="{x1}" y1="{p:.2}" y2="{p:.2}" stroke="{color}"/>"#
                )
            };
        };
        for &v in &self.x.minor {
            grid(out, v, true, "#f0f0f0");
        }
        for &v in &self.y.minor {
            grid(out, v, false, "#f0f0f0");
        }
        for t in &self.x.ticks {
            grid(out, t.value, true, "#dddddd");
            let at = (self.x.px(t.value), y0 + 18.0);
            Self::text(out, "xtick", at, "middle", FONT, &t.label);
        }
        for t in &self.y.ticks {
            grid(out, t.value, false, "#dddddd");
            let at = (x0 - 8.0, self.y.px(t.value) + 4.0);
            Self::text(out, "ytick", at, "end", FONT, &t.label);
        }
        let _ = writeln!(
            out,
            r##"<rect x="{x0}" y="{y1}" width="{WIDTH}" height="{HEIGHT}" fill="none" stroke="#555"/>"##
        );
    }

    fn legend_svg(&self, out: &mut String) -> f64 {
        let x = LEFT + WIDTH + LEGEND_GAP;
        let mut widest: f64 = 0.0;
        for (i, (swatch, text)) in self.legend.iter().enumerate() {
            let y = TOP + 8.0 + LEGEND_ROW * i as f64;
            let _ = match swatch {
                Swatch::Line(s) => writeln!(
                    out,
                    r#"<line x1="{x}" x2="{}" y1="{y}" y2="{y}" {}/>"#,
                    x + SWATCH,
                    s.attrs()
                ),
                Swatch::Circle(c) => writeln!(
                    out,
                    r#"<circle cx="{}" cy="{y}" r="5" fill="white" stroke="{c}" stroke-width="2"/>"#,
                    x + SWATCH / 2.0
                ),
                Swatch::Dots(s) => writeln!(
                    out,
                    r#"<line x1="{x}" x2="{}" y1="{y}" y2="{y}" {}/><circle cx="{}" cy="{y}" r="2.5" fill="{}" fill-opacity="{}"/>"#,
                    x + SWATCH,
                    s.attrs(),
                    x + SWATCH / 2.0,
                    s.color,
                    s.opacity
                ),
                Swatch::Bracket(s) => writeln!(
                    out,
                    r#"<line x1="{x}" x2="{}" y1="{y}" y2="{y}" {}/><line x1="{}" x2="{}" y1="{}" y2="{}" {}/><line x1="{}" x2="{}" y1="{}" y2="{}" {}/>"#,
                    x + SWATCH,
                    s.attrs(),
                    x + 9.0,
                    x + 9.0,
                    y - 7.0,
                    y + 7.0,
                    s.attrs(),
                    x + SWATCH - 9.0,
                    x + SWATCH - 9.0,
                    y - 7.0,
                    y + 7.0,
                    s.attrs()
                ),
                Swatch::None => Ok(()),
            };
            Self::text(
                out,
                "legend",
                (x + SWATCH + 8.0, y + 4.0),
                "start",
                FONT,
                text,
            );
            widest = widest.max(SWATCH + 8.0 + text_width(text, FONT));
        }
        x + widest + 16.0
    }

    /// The finished SVG document; its width fits the legend and the title.
    pub fn finish(&self) -> String {
        let mut inner = String::new();
        self.grid_and_ticks(&mut inner);
        inner.push_str(&self.body);
        let legend_end = self.legend_svg(&mut inner);
        let (x0, x1) = x_span();
        let (y0, _) = y_span();
        let width = legend_end
            .max(x0 + text_width(&self.title, 15.0) + 16.0)
            .max(x0 + text_width(&self.subtitle, FONT) + 16.0)
            .max(x1 + 24.0)
            .ceil();
        let height = (y0 + BOTTOM).max(TOP + 16.0 + LEGEND_ROW * self.legend.len() as f64);
        let mut s = String::new();
        let _ = writeln!(
            s,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="{FONT}">"#
        );
        let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
        Self::text(&mut s, "title", (x0, 22.0), "start", 15.0, &self.title);
        Self::text(
            &mut s,
            "subtitle",
            (x0, 42.0),
            "start",
            FONT,
            &self.subtitle,
        );
        s.push_str(&inner);
        Self::text(
            &mut s,
            "xtitle",
            ((x0 + x1) / 2.0, y0 + 44.0),
            "middle",
            13.0,
            &self.x_title,
        );
        let cy = TOP + HEIGHT / 2.0;
        let _ = writeln!(
            s,
            r#"<text class="ytitle" x="22" y="{cy}" text-anchor="middle" font-size="13" transform="rotate(-90 22 {cy})">{}</text>"#,
            escape(&self.y_title)
        );
        s.push_str("</svg>\n");
        s
    }
}
