//! Live video: [`capture`] (video files, [`mod@file`], and webcams) feeds frames, each a
//! [`picture`] made gray or colour when asked, to [`vision`] (find the grid, follow it with
//! [`track`], held on the print by [`anchor`], recognize and solve its puzzle once with
//! [`crate::recognize`], tell puzzles seen before with [`known`], a grid printed in coloured ink in
//! its darkest [`colour`]; each grid followed is a
//! [`tracked`] track, which says where the solution may be drawn), and [`display`] draws the
//! solution onto each frame (window, video file, JSON lines); [`live`] runs the three as
//! threads. [`several`] runs a vision stage for each puzzle in view.

pub mod anchor;
pub mod capture;
pub mod colour;
pub mod display;
pub mod file;
pub mod known;
pub mod live;
pub mod picture;
pub mod several;
pub mod track;
pub mod tracked;
pub mod vision;
