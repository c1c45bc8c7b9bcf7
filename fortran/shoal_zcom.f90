! shoal_zcom: the ZCom API for Fortran (section 4.5 of the ZCom thesis), through ISO_C_BINDING.
! The communicator is a Fortran MPI integer handle; buffers and attached addresses are C pointers
! (c_loc(array) in, c_f_pointer(attached_addrs(i), array, shape) out). Every routine sets err to
! ZCOM_SUCCESS (0) or one of the ZCOM_ERR_* codes of shoal/zcom.h.
module shoal_zcom
  use, intrinsic :: iso_c_binding
  implicit none
  private
  public :: ZCom_init, ZCom_cleanup, ZCom_can_write, ZCom_have_written, ZCom_can_read, &
            ZCom_have_read

  integer(c_int), parameter, public :: ZCOM_SUCCESS = 0, ZCOM_ERR_ARG = 1, ZCOM_ERR_BUFFER = 2, &
       ZCOM_ERR_RANK = 3, ZCOM_ERR_NOT_LOCAL = 4, ZCOM_ERR_NOT_PAIRED = 5, ZCOM_ERR_SIZE = 6, &
       ZCOM_ERR_CHANNEL = 7, ZCOM_ERR_STATE = 8, ZCOM_ERR_OVERLAP = 9, ZCOM_ERR_SYS = 10, &
       ZCOM_ERR_MPI = 11, ZCOM_ERR_NO_MPI = 12

  interface
    ! ZCom_init(buffers, buffer_sizes, comm, target_ranks, num_targets, attached_addrs,
    !           channel_ids, err): collective over comm.
    subroutine ZCom_init(buffers, buffer_sizes, comm, target_ranks, num_targets, &
                         attached_addrs, channel_ids, err) bind(C, name="ZCom_init_f")
      import :: c_ptr, c_size_t, c_int
      type(c_ptr), intent(in) :: buffers(*)
      integer(c_size_t), intent(in) :: buffer_sizes(*)
      integer(c_int), intent(in) :: comm
      integer(c_int), intent(in) :: target_ranks(*)
      integer(c_int), intent(in) :: num_targets
      type(c_ptr), intent(out) :: attached_addrs(*)
      integer(c_int), intent(out) :: channel_ids(*)
      integer(c_int), intent(out) :: err
    end subroutine

    ! ZCom_cleanup(channel_ids, num_targets, comm, err): collective over comm.
    subroutine ZCom_cleanup(channel_ids, num_targets, comm, err) bind(C, name="ZCom_cleanup_f")
      import :: c_int
      integer(c_int), intent(in) :: channel_ids(*)
      integer(c_int), intent(in) :: num_targets
      integer(c_int), intent(in) :: comm
      integer(c_int), intent(out) :: err
    end subroutine

    ! 1 when the peer has read everything I announced, else 0.
    integer(c_int) function ZCom_can_write(channel_id, err) bind(C, name="ZCom_can_write_c")
      import :: c_int
      integer(c_int), value :: channel_id
      integer(c_int), intent(out) :: err
    end function

    subroutine ZCom_have_written(channel_id, err) bind(C, name="ZCom_have_written_c")
      import :: c_int
      integer(c_int), value :: channel_id
      integer(c_int), intent(out) :: err
    end subroutine

    ! 1 when the peer has announced a write I have not read, else 0.
    integer(c_int) function ZCom_can_read(channel_id, err) bind(C, name="ZCom_can_read_c")
      import :: c_int
      integer(c_int), value :: channel_id
      integer(c_int), intent(out) :: err
    end function

    subroutine ZCom_have_read(channel_id, err) bind(C, name="ZCom_have_read_c")
      import :: c_int
      integer(c_int), value :: channel_id
      integer(c_int), intent(out) :: err
    end subroutine
  end interface
end module shoal_zcom
