//! HEIF and AVIF pictures (a phone's photos: iPhones save HEIC by default), decoded by the
//! system's libheif. The Debian OpenCV reads neither. libheif is loaded when the first such
//! picture comes, not linked: every other picture, and the videos, need nothing of it, and a
//! machine without it still runs and says what is missing.

use std::ffi::{CStr, c_char, c_int, c_void};
use std::sync::OnceLock;

use libloading::Library;

/// The names libheif's library goes by (Debian's `libheif1`, pulled in by OpenCV's GDAL).
const LIBRARY_NAMES: [&str; 2] = ["libheif.so.1", "libheif.so"];

/// `heif_colorspace_RGB` and `heif_chroma_interleaved_RGBA` of `libheif/heif.h`.
const COLORSPACE_RGB: c_int = 1;
const CHROMA_INTERLEAVED_RGBA: c_int = 11;
/// `heif_channel_interleaved`.
const CHANNEL_INTERLEAVED: c_int = 10;

/// The largest picture decoded, in pixels: a phone's 48-megapixel photo is well inside, a
/// file claiming more is taken for broken rather than tried.
const MOST_PIXELS: i64 = 200_000_000;

/// `struct heif_error`: returned by value.
#[repr(C)]
struct HeifError {
    code: c_int,
    subcode: c_int,
    message: *const c_char,
}

impl HeifError {
    fn check(self) -> Result<(), String> {
        if self.code == 0 {
            return Ok(());
        }
        if self.message.is_null() {
            return Err(format!("libheif error {}", self.code));
        }
        // SAFETY: libheif's messages are static, NUL-terminated strings.
        let message = unsafe { CStr::from_ptr(self.message) };
        Err(message.to_string_lossy().into_owned())
    }
}

type Opaque = c_void;

/// The few libheif functions used, looked up once.
struct Heif {
    context_alloc: unsafe extern "C" fn() -> *mut Opaque,
    context_free: unsafe extern "C" fn(*mut Opaque),
    read_from_memory:
        unsafe extern "C" fn(*mut Opaque, *const c_void, usize, *const Opaque) -> HeifError,
    primary_handle: unsafe extern "C" fn(*mut Opaque, *mut *mut Opaque) -> HeifError,
    handle_release: unsafe extern "C" fn(*const Opaque),
    decode: unsafe extern "C" fn(
        *const Opaque,
        *mut *mut Opaque,
        c_int,
        c_int,
        *const Opaque,
    ) -> HeifError,
    image_width: unsafe extern "C" fn(*const Opaque, c_int) -> c_int,
    image_height: unsafe extern "C" fn(*const Opaque, c_int) -> c_int,
    plane: unsafe extern "C" fn(*const Opaque, c_int, *mut c_int) -> *const u8,
    image_release: unsafe extern "C" fn(*const Opaque),
    /// Keeps the functions above loaded.
    _library: Library,
}

impl Heif {
    fn load() -> Result<Heif, String> {
        let mut failures = Vec::new();
        for name in LIBRARY_NAMES {
            // SAFETY: libheif's initialisers only set up its own tables.
            match unsafe { Library::new(name) } {
                Ok(library) => {
                    return Heif::looked_up_in(library).map_err(|e| format!("{name}: {e}"));
                }
                Err(e) => failures.push(e.to_string()),
            }
        }
        Err(format!(
            "libheif is not installed (Debian: apt install libheif1): {}",
            failures.join("; ")
        ))
    }

    fn looked_up_in(library: Library) -> Result<Heif, libloading::Error> {
        // SAFETY: each symbol is given the signature `libheif/heif.h` declares for it (as of
        // libheif 1.15, Debian 12's; these calls are older than that and unchanged since);
        // the pointers stay valid while `library` is kept.
        unsafe {
            Ok(Heif {
                context_alloc: *library.get(b"heif_context_alloc\0")?,
                context_free: *library.get(b"heif_context_free\0")?,
                read_from_memory: *library.get(b"heif_context_read_from_memory_without_copy\0")?,
                primary_handle: *library.get(b"heif_context_get_primary_image_handle\0")?,
                handle_release: *library.get(b"heif_image_handle_release\0")?,
                decode: *library.get(b"heif_decode_image\0")?,
                image_width: *library.get(b"heif_image_get_width\0")?,
                image_height: *library.get(b"heif_image_get_height\0")?,
                plane: *library.get(b"heif_image_get_plane_readonly\0")?,
                image_release: *library.get(b"heif_image_release\0")?,
                _library: library,
            })
        }
    }

    /// The primary picture of the HEIF/AVIF file `bytes` as RGBA rows (turned and mirrored as
    /// the file says, as libheif does by default): width, height, pixels.
    fn decode_rgba(&self, bytes: &[u8]) -> Result<(usize, usize, Vec<u8>), String> {
        // SAFETY: every object libheif hands out is released exactly once, by the guards
        // below, after its last use; `bytes` outlives the context that reads it in place.
        unsafe {
            let context = Guard((self.context_alloc)(), |c| (self.context_free)(c));
            if context.0.is_null() {
                return Err("libheif could not allocate a context".into());
            }
            (self.read_from_memory)(
                context.0,
                bytes.as_ptr().cast(),
                bytes.len(),
                std::ptr::null(),
            )
            .check()?;
            let mut handle = std::ptr::null_mut();
            (self.primary_handle)(context.0, &mut handle).check()?;
            let handle = Guard(handle, |h| (self.handle_release)(h));
            let mut image = std::ptr::null_mut();
            (self.decode)(
                handle.0,
                &mut image,
                COLORSPACE_RGB,
                CHROMA_INTERLEAVED_RGBA,
                std::ptr::null(),
            )
            .check()?;
            let image = Guard(image, |i| (self.image_release)(i));
            let width = (self.image_width)(image.0, CHANNEL_INTERLEAVED);
            let height = (self.image_height)(image.0, CHANNEL_INTERLEAVED);
            let mut stride = 0;
            let plane = (self.plane)(image.0, CHANNEL_INTERLEAVED, &mut stride);
            let sane = width > 0
                && height > 0
                && i64::from(width) * i64::from(height) <= MOST_PIXELS
                && stride >= 4 * width
                && !plane.is_null();
            if !sane {
                return Err(format!("libheif gave a {width}x{height} picture"));
            }
            let (width, height, stride) = (width as usize, height as usize, stride as usize);
            let mut rgba = Vec::with_capacity(4 * width * height);
            for row in 0..height {
                let start = plane.add(row * stride);
                rgba.extend_from_slice(std::slice::from_raw_parts(start, 4 * width));
            }
            Ok((width, height, rgba))
        }
    }
}

/// Releases a libheif object when dropped.
struct Guard<F: FnMut(*mut Opaque)>(*mut Opaque, F);

impl<F: FnMut(*mut Opaque)> Drop for Guard<F> {
    fn drop(&mut self) {
        if !self.0.is_null() {
            (self.1)(self.0);
        }
    }
}

/// Whether `bytes` start as a HEIF or AVIF file: an ISO media `ftyp` box whose brands name
/// a HEIF still picture (an MP4 video starts with `ftyp` too, with other brands).
pub(super) fn is_heif(bytes: &[u8]) -> bool {
    const BRANDS: [&[u8; 4]; 9] = [
        b"heic", b"heix", b"heim", b"heis", b"hevc", b"hevx", b"mif1", b"avif", b"avis",
    ];
    if bytes.len() < 16 || &bytes[4..8] != b"ftyp" {
        return false;
    }
    let size = u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) as usize;
    let ftyp = &bytes[8..size.clamp(16, bytes.len())];
    // The major brand, the minor version (4 bytes, skipped), then the compatible brands.
    std::iter::once(&ftyp[..4])
        .chain(ftyp.get(8..).unwrap_or_default().chunks_exact(4))
        .any(|brand| BRANDS.iter().any(|b| b.as_slice() == brand))
}

/// Decodes a HEIF or AVIF picture (see [`is_heif`]) into RGBA: width, height, pixels. The
/// error says why not, in a few words: libheif missing, or its own message.
pub(super) fn decode_rgba(bytes: &[u8]) -> Result<(usize, usize, Vec<u8>), String> {
    static HEIF: OnceLock<Result<Heif, String>> = OnceLock::new();
    match HEIF.get_or_init(Heif::load) {
        Ok(heif) => heif.decode_rgba(bytes),
        Err(reason) => Err(reason.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ftyp(major: &[u8; 4], compatible: &[&[u8; 4]]) -> Vec<u8> {
        let size = 16 + 4 * compatible.len();
        let mut bytes = (size as u32).to_be_bytes().to_vec();
        bytes.extend_from_slice(b"ftyp");
        bytes.extend_from_slice(major);
        bytes.extend_from_slice(&[0; 4]);
        for brand in compatible {
            bytes.extend_from_slice(*brand);
        }
        bytes.extend_from_slice(&[0; 32]);
        bytes
    }

    #[test]
    fn tells_heif_pictures_from_videos_and_other_files() {
        assert!(is_heif(&ftyp(b"heic", &[b"mif1", b"heic"])));
        assert!(is_heif(&ftyp(b"mif1", &[b"heic"])));
        assert!(is_heif(&ftyp(b"avif", &[b"mif1", b"miaf"])));
        assert!(!is_heif(&ftyp(
            b"isom",
            &[b"isom", b"iso2", b"avc1", b"mp41"]
        )));
        assert!(!is_heif(b"\x89PNG\r\n\x1a\n0000000000000000"));
        assert!(!is_heif(b"ftyp"));
        // A size field that lies (beyond the file, or too short) reads no further than the file.
        let mut lying = ftyp(b"qt  ", &[b"heic"]);
        lying[..4].copy_from_slice(&u32::MAX.to_be_bytes());
        assert!(is_heif(&lying));
        lying[..4].copy_from_slice(&3u32.to_be_bytes());
        assert!(!is_heif(&lying));
    }

    #[test]
    fn a_broken_heif_file_is_an_error_not_a_crash() {
        let mut bytes = ftyp(b"heic", &[b"mif1", b"heic"]);
        bytes.extend_from_slice(&[0xAB; 200]);
        assert!(decode_rgba(&bytes).is_err());
        assert!(decode_rgba(&bytes[..20]).is_err());
    }
}
